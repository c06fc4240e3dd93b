// The target model file: exact round trip, and a clear error — never a crash or a half-loaded
// model — for a flipped byte, a truncated file, another version, or something else entirely.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "detection/binary_io.h"
#include "detection/target_model_io.h"
#include "detection/target_quality.h"

namespace nft::detection {
namespace {

TargetModel sampleModel() {
  TargetModel m;
  m.image.create(48, 64, CV_8UC1);
  cv::RNG rng(3);
  rng.fill(m.image, cv::RNG::UNIFORM, 0, 256);
  m.originalScale = 2.5;
  m.widthMetres = 0.187;
  m.descriptorType = DescriptorType::Surf64;
  m.orientation = Orientation::Oriented;
  for (int i = 0; i < 5; ++i) {
    const float f = static_cast<float>(i);
    m.keypoints.push_back({10.25f + f, 20.5f + f, 1.2f * (f + 1), 30.0f * f, 100.0f - f, i % 2});
  }
  m.descriptors.create(5, 64, CV_32F);
  rng.fill(m.descriptors, cv::RNG::UNIFORM, -1.0, 1.0);
  m.patches = {{{12.5f, 7.25f}, 0, 3.5f}, {{40.0f, 30.0f}, 1, 0.25f}};
  m.tiltedKeypoints = 2;  // the last two from tilted views
  m.quality.keypointCount = 5;
  m.quality.coverage = 0.125;
  m.quality.distinctness = 0.8;
  m.quality.meanContrast = 42.5;
  m.quality.stars = 1;
  m.quality.warnings = {"too plain: 5 keypoints", "uneven"};
  return m;
}

class TargetModelFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nft_model_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));  // two builds (release, asan) testing at once on one machine must not share it
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "target.nftm").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::vector<char> bytes() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write(const std::vector<char>& b) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(b.data(), static_cast<std::streamsize>(b.size()));
  }
  std::string loadError() const {
    try {
      loadTargetModel(path_);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "(loaded)";
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(TargetModelFile, RoundTripIsExact) {
  const TargetModel m = sampleModel();
  saveTargetModel(m, path_);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".part"));
  const TargetModel back = loadTargetModel(path_);
  EXPECT_EQ(cv::norm(back.image, m.image, cv::NORM_INF), 0.0);
  EXPECT_EQ(back.originalScale, m.originalScale);
  EXPECT_EQ(back.widthMetres, m.widthMetres);
  EXPECT_EQ(back.descriptorType, m.descriptorType);
  EXPECT_EQ(back.orientation, m.orientation);
  ASSERT_EQ(back.keypoints.size(), m.keypoints.size());
  for (size_t i = 0; i < m.keypoints.size(); ++i) {
    EXPECT_EQ(back.keypoints[i].x, m.keypoints[i].x);
    EXPECT_EQ(back.keypoints[i].y, m.keypoints[i].y);
    EXPECT_EQ(back.keypoints[i].scale, m.keypoints[i].scale);
    EXPECT_EQ(back.keypoints[i].angle, m.keypoints[i].angle);
    EXPECT_EQ(back.keypoints[i].response, m.keypoints[i].response);
    EXPECT_EQ(back.keypoints[i].octave, m.keypoints[i].octave);
  }
  EXPECT_EQ(cv::norm(back.descriptors, m.descriptors, cv::NORM_INF), 0.0);
  EXPECT_EQ(back.tiltedKeypoints, 2);
  ASSERT_EQ(back.patches.size(), 2u);
  EXPECT_EQ(back.patches[1].position, m.patches[1].position);
  EXPECT_EQ(back.patches[1].level, 1);
  EXPECT_EQ(back.patches[0].score, 3.5f);
  EXPECT_EQ(back.quality.stars, 1);
  EXPECT_EQ(back.quality.warnings, m.quality.warnings);
  EXPECT_DOUBLE_EQ(back.metresPerPixel(), 0.187 / 64);
}

TEST_F(TargetModelFile, EveryFlippedByteIsRejected) {
  saveTargetModel(sampleModel(), path_);
  const std::vector<char> good = bytes();
  // Every byte, not a sample: header bytes give their own messages, the rest the checksum's.
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<char> bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    write(bad);
    const std::string error = loadError();
    ASSERT_NE(error, "(loaded)") << "byte " << i << " flipped and still loaded";
    ASSERT_NE(error.find(path_), std::string::npos) << error;
  }
  write(good);
  std::vector<char> bad = good;
  bad[200] = static_cast<char>(bad[200] ^ 1);
  write(bad);
  EXPECT_NE(loadError().find("checksum mismatch"), std::string::npos) << loadError();
}

TEST_F(TargetModelFile, TruncatedFilesAreRejected) {
  saveTargetModel(sampleModel(), path_);
  const std::vector<char> good = bytes();
  for (size_t size : {size_t{0}, size_t{3}, size_t{10}, size_t{16}, good.size() / 2, good.size() - 1}) {
    write(std::vector<char>(good.begin(), good.begin() + static_cast<long>(size)));
    const std::string error = loadError();
    EXPECT_NE(error, "(loaded)") << size << " bytes";
  }
  write(std::vector<char>(good.begin(), good.end() - 1));
  EXPECT_NE(loadError().find("truncated"), std::string::npos) << loadError();
}

TEST_F(TargetModelFile, OtherVersionsAndOtherFilesHaveTheirOwnMessages) {
  saveTargetModel(sampleModel(), path_);
  std::vector<char> b = bytes();
  b[4] = 4;  // format version 4
  write(b);
  EXPECT_NE(loadError().find("format version 4, but this build reads versions 2 to 3"), std::string::npos)
      << loadError();
  b[4] = 1;  // version 1, before the tilted-view count
  write(b);
  EXPECT_NE(loadError().find("format version 1, but this build reads versions 2 to 3"), std::string::npos)
      << loadError();
  b[4] = 2;  // a version-3 payload read as version 2: the geometry is left over
  write(b);
  EXPECT_NE(loadError().find("40 unexpected bytes after the quality report"), std::string::npos) << loadError();
  write({'P', 'N', 'G', '!', 0, 0, 0, 0});
  EXPECT_NE(loadError().find("not a target model file"), std::string::npos) << loadError();
  std::filesystem::remove(path_);
  EXPECT_NE(loadError().find("cannot open"), std::string::npos) << loadError();
}

TEST_F(TargetModelFile, CurvedGeometriesRoundTripAndVersionTwoFilesArePlanar) {
  // Issue 47, item 1: the geometry is stored (version 3) and read back exactly; a file of
  // version 2 (the seed the build before version 3 wrote, scripts/fuzz.sh --make-corpus, behind
  // the fuzzer's one-byte prefix) loads as a planar target.
  TargetModel can = sampleModel();  // 64 × 48 px, 0.187 m wide: a label 0.14 m high
  can.geometry.kind = GeometryKind::Cylinder;
  can.geometry.radiusM = 0.033;
  saveTargetModel(can, path_);
  EXPECT_EQ(loadTargetModel(path_).geometry, can.geometry);
  TargetModel cup = sampleModel();
  cup.geometry.kind = GeometryKind::Cone;
  cup.geometry.topRadiusM = 0.045;
  cup.geometry.bottomRadiusM = 0.03;
  cup.geometry.sideLengthM = 0.16;
  cup.geometry.coneLabel = ConeLabel::Rectangle;
  saveTargetModel(cup, path_);
  const TargetModel back = loadTargetModel(path_);
  EXPECT_EQ(back.geometry, cup.geometry);
  EXPECT_EQ(back.keypoints.size(), cup.keypoints.size());

  std::ifstream seed(std::filesystem::path(NFT_SOURCE_DIR) / "tests/fuzz/corpus/target_model/v2-s64-file.bin",
                     std::ios::binary);
  ASSERT_TRUE(seed) << "the version-2 seed file is missing";
  const std::vector<char> old((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  ASSERT_EQ(old[1 + 4], 2) << "not a version-2 file";
  write(std::vector<char>(old.begin() + 1, old.end()));
  const TargetModel planar = loadTargetModel(path_);
  EXPECT_EQ(planar.geometry, TargetGeometry{});
  EXPECT_EQ(planar.keypoints.size(), 16u);

  // A curved model that does not fit its label (0.187 m around a 2 cm radius) is not written;
  // a file whose geometry is out of range is refused, naming the field.
  TargetModel tight = can;
  tight.geometry.radiusM = 0.02;
  EXPECT_THROW(saveTargetModel(tight, path_), std::invalid_argument);
  saveTargetModel(can, path_);
  std::vector<char> b = bytes();
  // The geometry is the payload's last 40 bytes before the CRC: kind, 4 × f64, label.
  const size_t kind = b.size() - 4 - 40, radius = kind + 4;
  const auto rewrite = [&](const std::vector<char>& file) {
    std::vector<unsigned char> payload(file.begin() + 16, file.end() - 4);
    const std::vector<unsigned char> whole = binary::container("NFTM", kTargetModelVersion, payload);
    write(std::vector<char>(whole.begin(), whole.end()));
  };
  std::vector<char> badKind = b;
  badKind[kind] = 7;
  rewrite(badKind);
  EXPECT_NE(loadError().find("geometry kind 7"), std::string::npos) << loadError();
  std::vector<char> zeroRadius = b;
  std::fill(zeroRadius.begin() + static_cast<long>(radius), zeroRadius.begin() + static_cast<long>(radius + 8), 0);
  rewrite(zeroRadius);
  EXPECT_NE(loadError().find("radius_m 0 (expected a finite number > 0)"), std::string::npos) << loadError();
  EXPECT_NE(loadError().find(path_), std::string::npos) << loadError();
}

TEST_F(TargetModelFile, InconsistentModelsAreNotWritten) {
  TargetModel m = sampleModel();
  m.descriptors = m.descriptors.rowRange(0, 4).clone();
  EXPECT_THROW(saveTargetModel(m, path_), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(path_));
  TargetModel tilted = sampleModel();
  tilted.tiltedKeypoints = 6;  // more tilted-view keypoints than keypoints
  EXPECT_THROW(saveTargetModel(tilted, path_), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_THROW(saveTargetModel(sampleModel(), (dir_ / "missing" / "t.nftm").string()), std::runtime_error);
}

// --- the quality report ------------------------------------------------------------------------

TEST(TargetQuality, PlainRepetitiveAndGoodTargetsAreToldApart) {
  // Plain: a flat image with few keypoints.
  const cv::Mat flat(200, 200, CV_8UC1, cv::Scalar(128));
  const TargetQuality plain = rateTarget(flat, {}, cv::Mat(0, 64, CV_32F));
  EXPECT_EQ(plain.stars, 0);
  ASSERT_FALSE(plain.warnings.empty());
  EXPECT_NE(plain.warnings[0].find("too plain"), std::string::npos);

  // 400 keypoints on a grid covering the image.
  std::vector<Keypoint> grid;
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 20; ++x) grid.push_back({5.0f + 10.0f * static_cast<float>(x), 5.0f + 10.0f * static_cast<float>(y), 2.0f});
  cv::Mat textured(200, 200, CV_8UC1);
  cv::RNG(9).fill(textured, cv::RNG::UNIFORM, 0, 256);
  // Repetitive: every descriptor nearly the same.
  cv::Mat same(400, 64, CV_32F, cv::Scalar(0.125f));
  const TargetQuality repetitive = rateTarget(textured, grid, same);
  EXPECT_LT(repetitive.distinctness, 0.01);
  bool warned = false;
  for (const std::string& w : repetitive.warnings) warned |= w.find("too repetitive") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_LE(repetitive.stars, 4);
  // Distinct: random unit descriptors.
  cv::Mat random(400, 64, CV_32F);
  cv::RNG(10).fill(random, cv::RNG::NORMAL, 0.0, 1.0);
  for (int i = 0; i < random.rows; ++i) random.row(i) /= cv::norm(random.row(i));
  const TargetQuality good = rateTarget(textured, grid, random);
  EXPECT_DOUBLE_EQ(good.coverage, 1.0);
  EXPECT_GT(good.distinctness, 0.99);
  EXPECT_EQ(good.stars, 5);
  EXPECT_TRUE(good.warnings.empty());
  // Uneven: all keypoints in one corner.
  std::vector<Keypoint> corner(grid.begin(), grid.begin() + 40);
  for (Keypoint& k : corner) {
    k.x /= 4;
    k.y /= 4;
  }
  const TargetQuality uneven = rateTarget(textured, corner, random.rowRange(0, 40));
  EXPECT_LT(uneven.coverage, 0.2);
}

}  // namespace
}  // namespace nft::detection
