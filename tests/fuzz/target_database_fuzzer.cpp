// libFuzzer target: the target database loader (detection/target_database.h,
// TargetDatabase::load) on arbitrary bytes, through a scratch file.
//
// The first byte picks how the rest is used:
//   odd:  the rest is the file as it is — the header checks (magic, version, sizes, CRC-32).
//   even: the rest is a version-2 payload; the harness wraps it in a valid header and its CRC-32
//         (binary::container, what save() writes), so the fuzzer gets past the checksum (which it
//         cannot forge) into the payload's parser: target count, names, record sizes, the compact
//         records (detection/compact_target.h: 8-bit descriptors, a PNG or JPEG image, so
//         OpenCV's image decoders too), word ids, the vocabulary.
// Version-1 files (the v1-* and regress-* seeds, whole files) embed .nftm models, which keep their
// own CRC-32: mutations of a model's bytes mostly stop there (target_model_fuzzer's to fuzz).
// Contract: std::runtime_error naming the file, or a database that keeps the loader's promises
// (at least one target; non-empty, unique names that find() finds; one word id per keypoint, each
// below the vocabulary's size; a vocabulary of 1..65535 CV_32F words of the models' descriptor
// length; each model as target_model_fuzzer checks it) and that save() writes in version 3 as
// PNG (lossless) and loads back as the same database: names, word ids, vocabulary, images
// exactly; keypoint positions within version 3's 16-bit step (S / 131070 px, S the image's longer
// side); descriptors and positions exactly too once they have been through the codes (a second
// save writes the same bytes as the first: the format is a fixed point after one trip).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "detection/binary_io.h"
#include "detection/target_database.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

constexpr const char* kTarget = "target_database_fuzzer";

std::vector<unsigned char> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void checkPromises(const nft::detection::TargetDatabase& db) {
  using nft::fuzz::contractBroken;
  const nft::detection::Vocabulary& vocabulary = db.vocabulary();
  const cv::Mat& words = vocabulary.words();
  if (db.size() < 1) contractBroken(kTarget, "loaded a database without targets");
  if (vocabulary.size() < 1 || vocabulary.size() > 65535 || words.type() != CV_32F ||
      (words.cols != 64 && words.cols != 36))
    contractBroken(kTarget, "loaded a vocabulary of " + std::to_string(words.rows) + "x" + std::to_string(words.cols) +
                                " " + cv::typeToString(words.type()));
  std::set<std::string> names;
  for (int i = 0; i < db.size(); ++i) {
    const nft::detection::DatabaseTarget& t = db.targets()[static_cast<size_t>(i)];
    if (t.name.empty() || !names.insert(t.name).second)
      contractBroken(kTarget, "target " + std::to_string(i) + " has an empty or repeated name '" + t.name + "'");
    if (db.find(t.name) != i) contractBroken(kTarget, "find('" + t.name + "') is not its index");
    const nft::detection::TargetModel& m = t.model;
    if (m.image.empty() || m.image.type() != CV_8UC1)
      contractBroken(kTarget, "target '" + t.name + "' has no CV_8UC1 image");
    if (m.descriptors.rows != static_cast<int>(m.keypoints.size()) ||
        m.descriptors.cols != nft::detection::descriptorLength(m.descriptorType) || m.descriptors.cols != words.cols)
      contractBroken(kTarget, "target '" + t.name + "': descriptor matrix does not fit its keypoints or the vocabulary");
    if (m.tiltedKeypoints < 0 || static_cast<size_t>(m.tiltedKeypoints) > m.keypoints.size())
      contractBroken(kTarget, "target '" + t.name + "': tiltedKeypoints out of range");
    if (t.words.size() != m.keypoints.size())
      contractBroken(kTarget, "target '" + t.name + "': " + std::to_string(t.words.size()) + " word ids for " +
                                  std::to_string(m.keypoints.size()) + " keypoints");
    for (int id : t.words)
      if (id < 0 || id >= vocabulary.size())
        contractBroken(kTarget, "target '" + t.name + "': word id " + std::to_string(id) + " of " +
                                    std::to_string(vocabulary.size()) + " words");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const nft::fuzz::ScratchFile input("target_database", ".nftdb");
  static const nft::fuzz::ScratchFile output("target_database_out", ".nftdb");
  std::vector<unsigned char> bytes(data + 1, data + size);
  if ((data[0] & 1u) == 0)
    bytes = nft::detection::binary::container("NFTD", nft::detection::kTargetDatabaseVersion, bytes);
  input.write(bytes.data(), bytes.size());

  nft::detection::TargetDatabase db;
  try {
    db = nft::detection::TargetDatabase::load(input.path());
  } catch (const std::runtime_error& e) {
    // Refused with a message: fine, if the message says which file.
    if (std::string(e.what()).find(input.path()) == std::string::npos)
      nft::fuzz::contractBroken(kTarget, std::string("error without the file's name: ") + e.what());
    return 0;
  }
  checkPromises(db);
  const nft::detection::TargetDatabaseSaveOptions png{0};
  db.save(output.path(), png);
  const std::vector<unsigned char> saved = readAll(output.path());
  nft::detection::TargetDatabase back;
  try {
    back = nft::detection::TargetDatabase::load(output.path());
  } catch (const std::runtime_error& e) {
    nft::fuzz::contractBroken(kTarget, std::string("a saved database does not load: ") + e.what());
  }
  if (back.size() != db.size() || cv::norm(back.vocabulary().words(), db.vocabulary().words(), cv::NORM_INF) != 0)
    nft::fuzz::contractBroken(kTarget, "the saved database has other targets or another vocabulary");
  for (int i = 0; i < db.size(); ++i) {
    const auto& a = db.targets()[static_cast<size_t>(i)];
    const auto& b = back.targets()[static_cast<size_t>(i)];
    if (a.name != b.name || a.words != b.words || a.model.keypoints.size() != b.model.keypoints.size() ||
        a.model.image.size() != b.model.image.size() || cv::norm(a.model.image, b.model.image, cv::NORM_INF) != 0)
      nft::fuzz::contractBroken(kTarget, "target " + std::to_string(i) + " comes back different from the saved database");
    // Version 3 stores positions in units of S / 65535 px: within half a unit (and f32 rounding).
    const double step = std::max(a.model.image.cols, a.model.image.rows) / 65535.0;
    const double bound = 0.5 * step * 1.001 + 1e-4;
    for (size_t k = 0; k < a.model.keypoints.size(); ++k)
      if (!(std::abs(a.model.keypoints[k].x - b.model.keypoints[k].x) <= bound &&
            std::abs(a.model.keypoints[k].y - b.model.keypoints[k].y) <= bound))
        nft::fuzz::contractBroken(kTarget, "target " + std::to_string(i) + ": keypoint " + std::to_string(k) +
                                               " moved by more than " + std::to_string(bound) + " px");
  }
  back.save(output.path(), png);
  if (readAll(output.path()) != saved)
    nft::fuzz::contractBroken(kTarget, "saving the database loaded from a saved one does not give the same bytes");
  return 0;
}
