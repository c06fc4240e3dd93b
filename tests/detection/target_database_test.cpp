// Visual words, the inverted index and the target database file (detection/vocabulary.h,
// detection/target_database.h) on real SURF descriptors of ../shared/data images.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>
#endif

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/binary_io.h"
#include "detection/compact_target.h"
#include "detection/surf_cpu.h"
#include "detection/target_database.h"
#include "detection/target_model_io.h"
#include "detection/target_trainer.h"
#include "support/test_data.h"

namespace {

namespace fs = std::filesystem;
using nft::detection::TargetDatabase;

/// A target trained with the CPU SURF lane (the file format does not care which lane).
nft::detection::TargetModel trainCpu(const cv::Mat& image) {
  nft::detection::TargetTrainerOptions o;
  o.workingSize = 400;
  nft::detection::SurfCpu surf;
  return nft::detection::trainTarget(image, o, [&](const cv::Mat& gray, std::vector<nft::detection::Keypoint>& k) {
    return surf.describe(gray, k);
  });
}

std::vector<std::pair<std::string, nft::detection::TargetModel>> threeTargets() {
  std::vector<std::pair<std::string, nft::detection::TargetModel>> t;
  for (const char* name : {"graf", "boat", "wall"})
    t.emplace_back(name, trainCpu(nft::testing::loadGray(std::string("oxford/") + name + "/img1.png")));
  return t;
}

fs::path tempFile(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nft_db_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

TEST(InvertedIndex, RanksTheDocumentSharingTheRarestWordsFirst) {
  nft::detection::InvertedIndex index(6);
  index.add(0, {0, 1, 2, 2});
  index.add(1, {2, 3, 4});
  index.add(2, {5, 5, 5});
  const auto ranked = index.query({3, 4, 2}, 3);
  ASSERT_EQ(ranked.size(), 2u);  // document 2 shares no word
  EXPECT_EQ(ranked[0].first, 1);
  EXPECT_GT(ranked[0].second, ranked[1].second);
  EXPECT_NEAR(index.query({5, 5, 5}, 1)[0].second, 1.0, 1e-12) << "the same words as often score 1";
  EXPECT_NEAR(index.query({5}, 1)[0].second, std::sqrt(1.0 / 3.0), 1e-12) << "a third of the document's words";
  EXPECT_TRUE(index.query({3, 4}, 3, {1}).empty()) << "an excluded document is not returned";
  index.remove(1);
  EXPECT_TRUE(index.query({3, 4}, 3).empty());
  EXPECT_THROW(index.add(3, {6}), std::invalid_argument);
}

TEST(InvertedIndex, ASmallDocumentWhollyInAClutteredQueryOutranksALargerOnePartlyThere) {
  // A small target wholly in view among clutter (document 0: all 4 of its words in the query)
  // against a larger one of which 8 of 20 words show (document 1). The query's histogram is
  // mostly clutter, so its intersection with document 0 alone is small (0.18 against 0.35); the
  // document's coverage (1.0 against 0.37) puts it first (the geometric mean: 0.42 against 0.36).
  nft::detection::InvertedIndex index(60);
  index.add(0, {30, 31, 32, 33});
  std::vector<int> large(20), other(20);
  for (int w = 0; w < 20; ++w) large[static_cast<size_t>(w)] = w, other[static_cast<size_t>(w)] = 40 + w;
  index.add(1, large);
  index.add(2, other);
  index.add(3, {30, 40, 0, 5});
  std::vector<int> query{0, 1, 2, 3, 4, 5, 6, 7, 30, 31, 32, 33};
  for (int w = 40; w < 50; ++w) query.push_back(w);
  const auto ranked = index.query(query, 4);
  auto rank = [&](int id) {
    return std::find_if(ranked.begin(), ranked.end(), [&](const auto& r) { return r.first == id; }) - ranked.begin();
  };
  EXPECT_LT(rank(0), rank(1));
  EXPECT_NEAR(ranked[static_cast<size_t>(rank(0))].second, 0.418, 0.01);
}

TEST(Vocabulary, TheTreeDescentFindsTheNearestWordAsExactSearchDoes) {
  // 2,000 random unit words in 64 dimensions (no structure to help the tree), and queries near
  // some of them: the beam search must give the exact nearest word (BFMatcher) nearly always.
  cv::RNG rng(7);
  cv::Mat words(2000, 64, CV_32F);
  rng.fill(words, cv::RNG::NORMAL, 0.0, 1.0);
  for (int i = 0; i < words.rows; ++i) cv::normalize(words.row(i), words.row(i));
  const nft::detection::Vocabulary vocabulary(words);
  cv::Mat queries(500, 64, CV_32F), noise(500, 64, CV_32F);
  rng.fill(noise, cv::RNG::NORMAL, 0.0, 0.03);
  for (int i = 0; i < queries.rows; ++i) {
    cv::Mat row = words.row(i * 4) + noise.row(i);
    cv::normalize(row, queries.row(i));
  }
  const std::vector<int> tree = vocabulary.quantize(queries);
  std::vector<cv::DMatch> exact;
  cv::BFMatcher(cv::NORM_L2).match(queries, words, exact);
  int same = 0;
  for (const cv::DMatch& m : exact) same += tree[static_cast<size_t>(m.queryIdx)] == m.trainIdx ? 1 : 0;
  EXPECT_GE(same, 490) << "of 500";
  EXPECT_EQ(vocabulary.quantize(words.rowRange(0, 50)), [] {
    std::vector<int> ids(50);
    for (int i = 0; i < 50; ++i) ids[static_cast<size_t>(i)] = i;
    return ids;
  }()) << "a word is its own word";
  EXPECT_EQ(vocabulary.quantize(queries), tree) << "deterministic";
  const nft::detection::Vocabulary copy(words.clone());
  EXPECT_EQ(copy.quantize(queries), tree) << "the same words build the same tree";
  EXPECT_THROW(vocabulary.quantize(cv::Mat(3, 36, CV_32F)), std::invalid_argument);
}

TEST(TargetDatabase, RecognisesEachTargetFromAnotherViewAndRoundTrips) {
  NFT_REQUIRE_DATA("oxford/wall/img2.png");
  const TargetDatabase db = TargetDatabase::build(threeTargets());
  EXPECT_GT(db.vocabulary().size(), 50);
  // Another view of each scene (img2: a mild viewpoint change) ranks its own target first.
  nft::detection::InvertedIndex index(db.vocabulary().size());
  for (int i = 0; i < db.size(); ++i) index.add(i, db.targets()[static_cast<size_t>(i)].words);
  for (int i = 0; i < db.size(); ++i) {
    const std::string name = db.targets()[static_cast<size_t>(i)].name;
    const nft::detection::TargetModel view = trainCpu(nft::testing::loadGray("oxford/" + name + "/img2.png"));
    const auto ranked = index.query(db.vocabulary().quantize(view.descriptors), 3);
    ASSERT_FALSE(ranked.empty());
    EXPECT_EQ(ranked[0].first, i) << name << " img2 ranks target " << ranked[0].first << " first";
  }
  // Version 3: what is stored exactly comes back exactly; positions within S / 131070 px; the
  // descriptors as word + residual codes (residual_quantizer.h), far closer than their words
  // alone; the image as JPEG 85 (the default) within a few gray levels, as PNG exactly.
  for (int quality : {85, 0}) {
    const fs::path path = tempFile("three.nftdb");
    nft::detection::TargetDatabaseSaveOptions all;
    all.imageQuality = quality;
    all.maxTiltedKeypoints = -1;  // every tilted view (the cap has its own test)
    db.save(path.string(), all);
    const TargetDatabase back = TargetDatabase::load(path.string());
    ASSERT_EQ(back.size(), 3);
    EXPECT_EQ(back.find("boat"), 1);
    EXPECT_EQ(cv::norm(back.vocabulary().words(), db.vocabulary().words(), cv::NORM_INF), 0.0);
    EXPECT_GT(db.targets()[2].model.tiltedKeypoints, 0);  // trained with the tilted views (the default)
    for (size_t i = 0; i < 3; ++i) {
      const nft::detection::TargetModel& a = db.targets()[i].model;
      const nft::detection::TargetModel& b = back.targets()[i].model;
      EXPECT_EQ(back.targets()[i].words, db.targets()[i].words);
      EXPECT_EQ(b.tiltedKeypoints, a.tiltedKeypoints);
      ASSERT_EQ(b.keypoints.size(), a.keypoints.size());
      const double step = std::max(a.image.cols, a.image.rows) / 65535.0;
      for (size_t k = 0; k < a.keypoints.size(); ++k)
        ASSERT_TRUE(std::abs(b.keypoints[k].x - a.keypoints[k].x) <= 0.5 * step + 1e-4 &&
                    std::abs(b.keypoints[k].y - a.keypoints[k].y) <= 0.5 * step + 1e-4)
            << "keypoint " << k;
      ASSERT_EQ(b.descriptors.size(), a.descriptors.size());
      double error = 0, wordError = 0;
      const cv::Mat& words = db.vocabulary().words();
      for (int r = 0; r < a.descriptors.rows; ++r) {
        EXPECT_NEAR(cv::norm(b.descriptors.row(r)), 1.0, 0.2) << "near a unit row (word + centroids)";
        error += cv::norm(a.descriptors.row(r), b.descriptors.row(r));
        wordError += cv::norm(a.descriptors.row(r), words.row(db.targets()[i].words[static_cast<size_t>(r)]));
      }
      EXPECT_GT(error, 0.0) << "8 bytes are not 256";
      EXPECT_LT(error, 0.6 * wordError) << "the residual codes carry what the word does not";
      ASSERT_EQ(b.image.size(), a.image.size());
      const double meanError = cv::norm(a.image, b.image, cv::NORM_L1) / static_cast<double>(a.image.total());
      if (quality == 0) {
        EXPECT_EQ(meanError, 0.0);
      } else {
        EXPECT_GT(meanError, 0.0);
        EXPECT_LT(meanError, 5.0) << "JPEG 85 on the Oxford scenes' fine texture: 3.1-3.9 gray levels";
      }
      EXPECT_EQ(b.widthMetres, a.widthMetres);
      EXPECT_EQ(b.patches.size(), a.patches.size());
    }
    // A database loaded and saved again keeps its quantiser, its words and nearly its codes.
    const fs::path again = tempFile("again.nftdb");
    back.save(again.string(), all);
    const TargetDatabase twice = TargetDatabase::load(again.string());
    EXPECT_EQ(twice.targets()[0].words, back.targets()[0].words);
    EXPECT_LT(cv::norm(twice.targets()[0].model.descriptors, back.targets()[0].model.descriptors, cv::NORM_INF), 0.2);
  }
  // The default keeps the 300 strongest tilted-view keypoints of each target, in their order.
  {
    const fs::path path = tempFile("capped.nftdb");
    db.save(path.string());
    const TargetDatabase back = TargetDatabase::load(path.string());
    for (size_t i = 0; i < 3; ++i) {
      const nft::detection::TargetModel& a = db.targets()[i].model;
      const nft::detection::TargetModel& b = back.targets()[i].model;
      ASSERT_GT(a.tiltedKeypoints, 300) << "the test needs more views' keypoints than the cap";
      EXPECT_EQ(b.tiltedKeypoints, 300);
      ASSERT_EQ(static_cast<int>(b.keypoints.size()), a.frontalKeypoints() + 300);
      EXPECT_EQ(back.targets()[i].words.size(), b.keypoints.size());
      std::vector<float> responses;
      for (int k = a.frontalKeypoints(); k < static_cast<int>(a.keypoints.size()); ++k)
        responses.push_back(a.keypoints[static_cast<size_t>(k)].response);
      std::sort(responses.begin(), responses.end(), std::greater<>());
      const float weakestKept = responses[299];
      for (int k = b.frontalKeypoints(); k < static_cast<int>(b.keypoints.size()); ++k)  // halves: within 0.1 %
        EXPECT_GE(b.keypoints[static_cast<size_t>(k)].response, weakestKept * 0.999f) << "tilted keypoint " << k;
    }
  }
  EXPECT_TRUE(db.lookAlikes(0.9).empty()) << "three different scenes are not look-alikes";
  EXPECT_THROW(db.save(tempFile("q.nftdb").string(), {101}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(tempFile("q.nftdb")));
}

/// A version-1 file as the builds before version 2 wrote it: each model as a whole .nftm.
TEST(TargetDatabase, CompactTargetsAreDecodedOnDemandIntoTheSameModels) {
  // TargetDatabaseLoadOptions::keepCompact (issue 33, item 6): the targets stay in the mapped
  // file, only what recognition needs at all times in memory, and decode on demand into exactly
  // the models a plain load gives.
  NFT_REQUIRE_DATA("oxford/wall/img1.png");
  auto targets = threeTargets();
  std::vector<cv::Mat> original;
  for (const auto& [name, model] : targets) original.push_back(model.descriptors.clone());
  const fs::path path = tempFile("compact.nftdb");
  TargetDatabase::build(std::move(targets)).save(path.string());
  const TargetDatabase plain = TargetDatabase::load(path.string());
  nft::detection::TargetDatabaseLoadOptions options;
  options.keepCompact = true;
  const TargetDatabase compact = TargetDatabase::load(path.string(), options);
  ASSERT_EQ(compact.size(), 3);
  EXPECT_EQ(cv::norm(compact.vocabulary().words(), plain.vocabulary().words(), cv::NORM_INF), 0.0);
  for (size_t i = 0; i < 3; ++i) {
    const nft::detection::DatabaseTarget& p = plain.targets()[i];
    const nft::detection::DatabaseTarget& c = compact.targets()[i];
    EXPECT_FALSE(p.stored);
    ASSERT_TRUE(c.stored);
    const nft::detection::StoredTarget& s = *c.stored;
    EXPECT_EQ(s.decodeCount(), 0) << "loaded, not decoded";
    EXPECT_TRUE(c.model.image.empty() && c.model.keypoints.empty() && c.model.descriptors.empty());
    EXPECT_EQ(c.name, p.name);
    EXPECT_EQ(s.name(), p.name);
    EXPECT_EQ(c.words, p.words);
    // What recognition needs at all times, as the decoded model has it.
    EXPECT_EQ(s.imageSize(), p.model.image.size());
    EXPECT_EQ(s.metresPerPixel(), p.model.metresPerPixel());
    EXPECT_EQ(s.tiltedKeypoints(), p.model.tiltedKeypoints);
    EXPECT_GT(s.tiltedKeypoints(), 0);
    EXPECT_EQ(s.frontalKeypoints(), p.model.frontalKeypoints());
    EXPECT_EQ(s.patchCount(), static_cast<int>(p.model.patches.size()));
    EXPECT_EQ(s.quality().stars, p.model.quality.stars);
    EXPECT_EQ(s.keypointCount(), static_cast<int>(p.model.keypoints.size()));
    // The descriptors alone: the stored codes decoded, bit for bit as a plain load's, and near
    // the trained ones (their first rows: the target's own keypoints, none dropped by the cap).
    const cv::Mat descriptors = s.decodeDescriptors();
    EXPECT_EQ(s.decodeCount(), 1);
    EXPECT_EQ(cv::norm(descriptors, p.model.descriptors, cv::NORM_INF), 0.0);
    const int frontal = s.frontalKeypoints();
    const cv::Range tilted(frontal, descriptors.rows);
    // What the recogniser verifies with: the same descriptors and the keypoints' positions.
    const nft::detection::StoredKeypoints verified = s.decodeKeypoints();
    EXPECT_EQ(s.decodeCount(), 2);
    EXPECT_EQ(cv::norm(verified.descriptors, descriptors, cv::NORM_INF), 0.0);
    ASSERT_EQ(verified.points.size(), p.model.keypoints.size());
    for (size_t k = 0; k < verified.points.size(); ++k)
      ASSERT_EQ(verified.points[k], cv::Point2f(p.model.keypoints[k].x, p.model.keypoints[k].y)) << "keypoint " << k;
    const double codesRms = cv::norm(descriptors.rowRange(0, frontal), original[i].rowRange(0, frontal)) / std::sqrt(frontal);
    EXPECT_LT(codesRms, 0.35) << "root mean square distance of the decoded descriptors";
    // The whole model as stored: the same bits as a plain load's.
    const nft::detection::TargetModel stored = s.decodeStored();
    EXPECT_EQ(s.decodeCount(), 3);
    EXPECT_EQ(cv::norm(stored.descriptors, p.model.descriptors, cv::NORM_INF), 0.0);
    EXPECT_EQ(cv::norm(stored.image, p.model.image, cv::NORM_INF), 0.0);
    // The whole model to track with: the same image, keypoints, patches; its own keypoints
    // described again from the (JPEG) image, nearer the trained descriptors than the codes; the
    // tilted views' rows are the codes'.
    const nft::detection::TargetModel m = s.decode();
    EXPECT_EQ(s.decodeCount(), 4);
    ASSERT_EQ(m.image.size(), p.model.image.size());
    EXPECT_EQ(cv::norm(m.image, p.model.image, cv::NORM_INF), 0.0);
    const double describedRms = cv::norm(m.descriptors.rowRange(0, frontal), original[i].rowRange(0, frontal)) / std::sqrt(frontal);
    EXPECT_LT(describedRms, 0.5 * codesRms) << "codes " << codesRms << ", described again " << describedRms;
    EXPECT_EQ(cv::norm(m.descriptors.rowRange(tilted), descriptors.rowRange(tilted), cv::NORM_INF), 0.0);
    ASSERT_EQ(m.keypoints.size(), p.model.keypoints.size());
    for (size_t k = 0; k < m.keypoints.size(); ++k)
      ASSERT_TRUE(m.keypoints[k].angle == p.model.keypoints[k].angle && m.keypoints[k].scale == p.model.keypoints[k].scale);
    ASSERT_EQ(m.patches.size(), p.model.patches.size());
    EXPECT_EQ(m.patches.back().position, p.model.patches.back().position);
  }
  // Saved again, the compact database writes the same bytes as the plain one.
  const fs::path a = tempFile("plain_again.nftdb"), b = tempFile("compact_again.nftdb");
  plain.save(a.string());
  compact.save(b.string());
  EXPECT_EQ(nft::detection::binary::readFile(a.string(), "a"), nft::detection::binary::readFile(b.string(), "b"));
}

#ifdef __linux__
/// Pages of `path`'s mappings in this process that are resident (present in its page table:
/// /proc/self/pagemap bit 63), over all its mappings.
long residentPagesOf(const fs::path& path) {
  std::ifstream maps("/proc/self/maps");
  const int pagemap = ::open("/proc/self/pagemap", O_RDONLY);
  EXPECT_GE(pagemap, 0) << "/proc/self/pagemap";
  const long page = ::sysconf(_SC_PAGESIZE);
  long resident = 0;
  std::string line;
  while (std::getline(maps, line)) {
    if (line.size() < path.string().size() || line.compare(line.size() - path.string().size(), std::string::npos, path.string()) != 0)
      continue;
    unsigned long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &from, &to) != 2) continue;
    std::vector<std::uint64_t> entries((to - from) / page);
    const ssize_t bytes = ::pread(pagemap, entries.data(), entries.size() * 8, static_cast<off_t>(from / page * 8));
    EXPECT_EQ(bytes, static_cast<ssize_t>(entries.size() * 8));
    for (std::uint64_t e : entries) resident += (e >> 63) & 1;
  }
  ::close(pagemap);
  return resident;
}

TEST(TargetDatabase, DecodingAStoredTargetLeavesNoneOfTheFileResident) {
  // A stored target is decoded from a copy read from the file (MappedFile::copy), not through the
  // mapping: read through it, Linux mapped the cached pages around each record as well, and a
  // run that verified each of 1,001 targets once kept 5.9 MB of the file resident.
  NFT_REQUIRE_DATA("oxford/wall/img1.png");
  const fs::path path = tempFile("resident.nftdb");
  TargetDatabase::build(threeTargets()).save(path.string());
  nft::detection::TargetDatabaseLoadOptions options;
  options.keepCompact = true;
  const TargetDatabase db = TargetDatabase::load(path.string(), options);
  EXPECT_EQ(residentPagesOf(path), 0) << "after the load";
  for (const nft::detection::DatabaseTarget& t : db.targets()) {
    ASSERT_TRUE(t.stored);
    EXPECT_GT(t.stored->decodeDescriptors().rows, 100);
    EXPECT_FALSE(t.stored->decode().image.empty());
  }
  EXPECT_EQ(residentPagesOf(path), 0) << "after decoding every target";
}
#endif

std::vector<unsigned char> versionOneFile(const TargetDatabase& db) {
  nft::detection::binary::Writer w;
  w.put<std::uint32_t>(static_cast<std::uint32_t>(db.size()));
  for (const nft::detection::DatabaseTarget& t : db.targets()) {
    w.putString(t.name);
    const std::vector<unsigned char> model = nft::detection::encodeTargetModel(t.model);
    w.put<std::uint64_t>(model.size());
    w.putBytes(model.data(), model.size());
    w.put<std::uint32_t>(static_cast<std::uint32_t>(t.words.size()));
    for (int id : t.words) w.put<std::uint16_t>(static_cast<std::uint16_t>(id));
  }
  const cv::Mat& words = db.vocabulary().words();
  w.put<std::uint32_t>(static_cast<std::uint32_t>(words.rows));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(words.cols));
  w.putBytes(words.data, words.total() * sizeof(float));
  return nft::detection::binary::container("NFTD", 1, w.bytes());
}

TEST(TargetDatabase, VersionOneFilesAreStillReadExactly) {
  NFT_REQUIRE_DATA("oxford/wall/img1.png");
  const TargetDatabase db = TargetDatabase::build(threeTargets());
  const fs::path path = tempFile("v1.nftdb");
  const std::vector<unsigned char> bytes = versionOneFile(db);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
  const TargetDatabase back = TargetDatabase::load(path.string());
  ASSERT_EQ(back.size(), 3);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.targets()[i].name, db.targets()[i].name);
    EXPECT_EQ(back.targets()[i].words, db.targets()[i].words);
    EXPECT_EQ(cv::norm(back.targets()[i].model.descriptors, db.targets()[i].model.descriptors, cv::NORM_INF), 0.0);
    EXPECT_EQ(cv::norm(back.targets()[i].model.image, db.targets()[i].model.image, cv::NORM_INF), 0.0);
  }
  // A file the build before version 2 wrote (nft_train --database, scripts/fuzz.sh --make-corpus;
  // the corpus file has the fuzzer's one-byte prefix): graf and box, 24 keypoints each.
  std::ifstream seed(fs::path(NFT_SOURCE_DIR) / "tests/fuzz/corpus/target_database/v1-s64-file.bin", std::ios::binary);
  ASSERT_TRUE(seed) << "the version-1 seed file is missing";
  std::vector<char> old((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  const fs::path oldPath = tempFile("old.nftdb");
  std::ofstream(oldPath, std::ios::binary).write(old.data() + 1, static_cast<long>(old.size() - 1));
  const TargetDatabase written = TargetDatabase::load(oldPath.string());
  ASSERT_EQ(written.size(), 2);
  EXPECT_EQ(written.targets()[0].name, "graf");
  EXPECT_EQ(written.targets()[1].name, "box");
  EXPECT_EQ(written.targets()[0].model.keypoints.size(), 24u);
  EXPECT_EQ(written.vocabulary().size(), 10);
}

TEST(TargetDatabase, VersionTwoFilesAreStillRead) {
  // A file the build before version 3 wrote (scripts/fuzz.sh --make-corpus; the corpus file has
  // the fuzzer's one-byte prefix): graf and box, 24 keypoints each, 8-bit descriptors, 10 words.
  std::ifstream seed(fs::path(NFT_SOURCE_DIR) / "tests/fuzz/corpus/target_database/v2-s64-file.bin", std::ios::binary);
  ASSERT_TRUE(seed) << "the version-2 seed file is missing";
  std::vector<char> old((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  ASSERT_EQ(old[1 + 4], 2) << "not a version-2 file";
  const fs::path path = tempFile("v2.nftdb");
  std::ofstream(path, std::ios::binary).write(old.data() + 1, static_cast<long>(old.size() - 1));
  for (bool keep : {false, true}) {
    nft::detection::TargetDatabaseLoadOptions options;
    options.keepCompact = keep;
    const TargetDatabase db = TargetDatabase::load(path.string(), options);
    ASSERT_EQ(db.size(), 2);
    EXPECT_EQ(db.targets()[0].name, "graf");
    EXPECT_EQ(db.targets()[1].name, "box");
    EXPECT_EQ(db.vocabulary().size(), 10);
    const cv::Mat d = keep ? db.targets()[0].stored->decodeDescriptors() : db.targets()[0].model.descriptors;
    ASSERT_EQ(d.rows, 24);
    EXPECT_EQ(db.targets()[0].words.size(), 24u);
    for (int r = 0; r < d.rows; ++r) EXPECT_NEAR(cv::norm(d.row(r)), 1.0, 1e-4);
    // Saved again, it is a version-3 file with the same targets and words.
    const fs::path again = tempFile("v2_again.nftdb");
    db.save(again.string());
    const TargetDatabase back = TargetDatabase::load(again.string());
    EXPECT_EQ(back.targets()[1].words, db.targets()[1].words);
    EXPECT_EQ(back.targets()[1].model.keypoints.size(), 24u);
  }
}

TEST(TargetDatabase, TheVocabularyIsTrainedOnTheTargetsOwnViews) {
  // The same three targets with their tilted views and without: the same words (k-means over the
  // targets' own descriptors only), and the same word for each of their own keypoints.
  NFT_REQUIRE_DATA("oxford/wall/img1.png");
  auto withViews = threeTargets();
  auto without = withViews;
  for (auto& [name, model] : without) {
    const int own = model.descriptors.rows - model.tiltedKeypoints;
    ASSERT_LT(own, model.descriptors.rows) << name << " has no tilted views";
    model.descriptors = model.descriptors.rowRange(0, own).clone();
    model.keypoints.resize(static_cast<size_t>(own));
    model.tiltedKeypoints = 0;
  }
  const TargetDatabase a = TargetDatabase::build(withViews), b = TargetDatabase::build(without);
  EXPECT_EQ(cv::norm(a.vocabulary().words(), b.vocabulary().words(), cv::NORM_INF), 0.0);
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<int>& wa = a.targets()[i].words;
    const std::vector<int>& wb = b.targets()[i].words;
    ASSERT_EQ(wa.size(), a.targets()[i].model.keypoints.size());
    EXPECT_TRUE(std::equal(wb.begin(), wb.end(), wa.begin())) << a.targets()[i].name;
  }
  auto badCount = withViews;
  badCount[0].second.tiltedKeypoints = badCount[0].second.descriptors.rows;  // no own view
  EXPECT_THROW(TargetDatabase::build(badCount), std::invalid_argument);
}

TEST(TargetDatabase, BadFilesAreErrorsNamingTheFileAndNothingIsHalfWritten) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  NFT_REQUIRE_DATA("oxford/boat/img1.png");  // threeTargets() reads graf, boat and wall
  auto targets = threeTargets();
  targets.resize(2);
  const TargetDatabase db = TargetDatabase::build(targets);
  const fs::path path = tempFile("two.nftdb");
  db.save(path.string());
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto errorOf = [&](const std::vector<char>& content) {
    const fs::path bad = tempFile("bad.nftdb");
    std::ofstream(bad, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
    try {
      TargetDatabase::load(bad.string());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::vector<char> truncated(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
  EXPECT_NE(errorOf(truncated).find("truncated"), std::string::npos) << errorOf(truncated);
  std::vector<char> flipped = bytes;
  flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 0x40);
  EXPECT_NE(errorOf(flipped).find("checksum mismatch"), std::string::npos) << errorOf(flipped);
  std::vector<char> version = bytes;
  version[4] = 9;
  EXPECT_NE(errorOf(version).find("format version 9, but this build reads versions 1 to 4"), std::string::npos)
      << errorOf(version);
  std::vector<char> model(bytes.begin(), bytes.end());
  model[0] = 'N', model[1] = 'F', model[2] = 'T', model[3] = 'M';
  EXPECT_NE(errorOf(model).find("not a target database file"), std::string::npos) << errorOf(model);
  EXPECT_NE(errorOf(model).find("bad.nftdb"), std::string::npos);

  // Inside a version-3 record past the checksum (the file's CRC-32 made to match): an image that
  // does not decode, or decodes to another size than the record says, named with the target.
  const std::vector<unsigned char> good(bytes.begin(), bytes.end());
  const auto u32At = [&](size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, good.data() + at, 4);
    return static_cast<size_t>(v);
  };
  // Header; the vocabulary (K, D, K x D f32); the quantiser (M, C, M x C x D / M f32); then the
  // target count and the first name's length.
  const size_t payload = 16, vocabularyEnd = payload + 8 + u32At(payload) * u32At(payload + 4) * 4;
  const size_t quantizerEnd = vocabularyEnd + 8 + u32At(vocabularyEnd + 4) * u32At(payload + 4) * 4;
  const size_t name = quantizerEnd + 4 + 4;
  const std::string first = db.targets()[0].name;
  const size_t record = name + first.size() + 8;           // after the name and the record's size
  const size_t imageBytes = record + 4 + 4 + 8 + 8 + 4 + 4;  // after size, scale, width, type, orientation
  auto rewrapped = [&](std::vector<unsigned char> p) {
    p = std::vector<unsigned char>(p.begin() + payload, p.end() - 4);
    const std::vector<unsigned char> file =
        nft::detection::binary::container("NFTD", nft::detection::kTargetDatabaseVersion, p);
    return std::vector<char>(file.begin(), file.end());
  };
  std::vector<unsigned char> noImage = good;
  for (size_t i = imageBytes + 4; i < imageBytes + 12; ++i) noImage[i] = 0;  // the JPEG's first bytes
  const std::string noImageError = errorOf(rewrapped(noImage));
  EXPECT_NE(noImageError.find("bad.nftdb"), std::string::npos) << noImageError;
  EXPECT_NE(noImageError.find("target '" + first + "': the image ("), std::string::npos) << noImageError;
  EXPECT_NE(noImageError.find("is not a PNG or JPEG file"), std::string::npos) << noImageError;
  std::vector<unsigned char> brokenJpeg = good;
  for (size_t i = imageBytes + 4 + 3; i < imageBytes + 4 + 300; ++i) brokenJpeg[i] = 0;  // its markers gone
  const std::string brokenError = errorOf(rewrapped(brokenJpeg));
  EXPECT_NE(brokenError.find("target '" + first + "': the image does not decode as JPEG"), std::string::npos)
      << brokenError;
  std::vector<unsigned char> wider = good;
  wider[record] = static_cast<unsigned char>(wider[record] + 1);  // the width the record announces
  const std::string widerError = errorOf(rewrapped(wider));
  EXPECT_NE(widerError.find("target '" + first + "': the image decodes to"), std::string::npos) << widerError;
  std::vector<unsigned char> type = good;
  type[record + 24] = 65;  // descriptor type 65
  EXPECT_NE(errorOf(rewrapped(type)).find("target '" + first + "': descriptor type 65"), std::string::npos)
      << errorOf(rewrapped(type));
  EXPECT_EQ(errorOf(rewrapped(good)), "no error") << "the rewrapping alone is no error";

  // Two targets of one name, an empty list: refused before anything is written.
  targets[1].first = targets[0].first;
  EXPECT_THROW(TargetDatabase::build(targets), std::invalid_argument);
  EXPECT_THROW(TargetDatabase().save(tempFile("empty.nftdb").string()), std::invalid_argument);
  EXPECT_FALSE(fs::exists(tempFile("empty.nftdb")));
}

}  // namespace

namespace {

TEST(TargetDatabase, TargetsKeepTheirGeometryAndVersionThreeFilesArePlanar) {
  // Issue 47, item 1: a database (version 4) stores each target's geometry; one of version 3
  // (the seed the build before version 4 wrote, scripts/fuzz.sh --make-corpus) loads as planar
  // targets, compact or not.
  std::ifstream seed(fs::path(NFT_SOURCE_DIR) / "tests/fuzz/corpus/target_database/v3-s64-file.bin", std::ios::binary);
  ASSERT_TRUE(seed) << "the version-3 seed file is missing";
  std::vector<char> old((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  ASSERT_EQ(old[1 + 4], 3) << "not a version-3 file";
  const fs::path v3 = tempFile("v3.nftdb");
  std::ofstream(v3, std::ios::binary).write(old.data() + 1, static_cast<long>(old.size() - 1));
  nft::detection::TargetDatabaseLoadOptions compactOptions;
  compactOptions.keepCompact = true;
  const TargetDatabase plain = TargetDatabase::load(v3.string());
  const TargetDatabase compact = TargetDatabase::load(v3.string(), compactOptions);
  ASSERT_EQ(plain.size(), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_FALSE(plain.targets()[static_cast<size_t>(i)].model.geometry.curved());
    EXPECT_FALSE(compact.targets()[static_cast<size_t>(i)].stored->geometry().curved());
  }
  // graf on a can (0.2 m of label around a 5 cm radius), box flat; saved as version 4.
  std::vector<std::pair<std::string, nft::detection::TargetModel>> models;
  for (const nft::detection::DatabaseTarget& t : plain.targets()) models.emplace_back(t.name, t.model);
  nft::detection::TargetGeometry can;
  can.kind = nft::detection::GeometryKind::Cylinder;
  can.radiusM = 0.05;
  ASSERT_GT(models[0].second.widthMetres, 0.0);
  models[0].second.geometry = can;
  const fs::path v4 = tempFile("v4.nftdb");
  TargetDatabase::build(std::move(models)).save(v4.string());
  std::ifstream written(v4, std::ios::binary);
  char header[8] = {};
  written.read(header, 8);
  EXPECT_EQ(header[4], static_cast<char>(nft::detection::kTargetDatabaseVersion));
  const TargetDatabase back = TargetDatabase::load(v4.string());
  const TargetDatabase backCompact = TargetDatabase::load(v4.string(), compactOptions);
  EXPECT_EQ(back.targets()[0].model.geometry, can);
  EXPECT_EQ(backCompact.targets()[0].stored->geometry(), can);
  EXPECT_EQ(backCompact.targets()[0].stored->decode().geometry, can);
  EXPECT_FALSE(back.targets()[1].model.geometry.curved());
  EXPECT_FALSE(backCompact.targets()[1].stored->decode().geometry.curved());
  EXPECT_EQ(back.targets()[0].model.keypoints.size(), plain.targets()[0].model.keypoints.size());
}

}  // namespace
