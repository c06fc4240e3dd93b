#include "detection/target_database.h"

#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "detection/binary_io.h"
#include "detection/compact_target.h"
#include "detection/mapped_file.h"
#include "detection/target_model_io.h"

namespace nft::detection {
namespace {

constexpr char kMagic[4] = {'N', 'F', 'T', 'D'};
constexpr std::uint32_t kMaxTargets = 1u << 20;
constexpr std::uint32_t kMaxName = 4096;
constexpr std::uint32_t kMaxKeypoints = 1u << 20;
// Largest magnitude of a word value. Descriptors are unit vectors (surf_descriptor.h), so a word,
// a mean of descriptors, lies in [-1, 1]; the margin is generous, and keeps the squared distances
// of the search tree's k-means (64 values) far below float's overflow.
constexpr double kMaxWordValue = 1e6;
constexpr size_t kQuantizerSample = 100000;

/// `model` and its `words` with at most `cap` tilted-view keypoints (>= 0, fewer than the model
/// has): the strongest by response, kept in their order (the views' blocks, strongest first
/// within each).
std::pair<TargetModel, std::vector<int>> capTilted(const TargetModel& model, const std::vector<int>& words, int cap) {
  const int frontal = model.frontalKeypoints(), tilted = model.tiltedKeypoints;
  std::vector<int> order(static_cast<size_t>(tilted));
  for (int i = 0; i < tilted; ++i) order[static_cast<size_t>(i)] = frontal + i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return model.keypoints[static_cast<size_t>(a)].response > model.keypoints[static_cast<size_t>(b)].response;
  });
  order.resize(static_cast<size_t>(cap));
  std::sort(order.begin(), order.end());
  TargetModel out = model;
  out.keypoints.resize(static_cast<size_t>(frontal));
  out.descriptors = model.descriptors.rowRange(0, frontal).clone();
  std::vector<int> outWords(words.begin(), words.begin() + frontal);
  for (int i : order) {
    out.keypoints.push_back(model.keypoints[static_cast<size_t>(i)]);
    out.descriptors.push_back(model.descriptors.row(i));
    outWords.push_back(words[static_cast<size_t>(i)]);
  }
  out.tiltedKeypoints = cap;
  return {std::move(out), std::move(outWords)};
}

}  // namespace

TargetDatabase TargetDatabase::build(std::vector<std::pair<std::string, TargetModel>> targets,
                                     const VocabularyOptions& options) {
  if (targets.empty()) throw std::invalid_argument("TargetDatabase::build: no targets");
  std::set<std::string> names;
  std::vector<cv::Mat> all;
  for (const auto& [name, model] : targets) {
    if (name.empty()) throw std::invalid_argument("TargetDatabase::build: a target has an empty name");
    if (!names.insert(name).second) throw std::invalid_argument("TargetDatabase::build: two targets are named '" + name + "'");
    if (model.descriptors.empty() || model.descriptors.rows != static_cast<int>(model.keypoints.size()))
      throw std::invalid_argument("TargetDatabase::build: target '" + name + "' has no descriptors");
    if (model.descriptorType != targets.front().second.descriptorType)
      throw std::invalid_argument("TargetDatabase::build: target '" + name +
                                  "' has another descriptor type than the first target");
    if (model.tiltedKeypoints < 0 || model.tiltedKeypoints >= model.descriptors.rows)
      throw std::invalid_argument("TargetDatabase::build: target '" + name + "' has " +
                                  std::to_string(model.tiltedKeypoints) + " tilted-view keypoints of " +
                                  std::to_string(model.descriptors.rows));
    all.push_back(model.frontalDescriptors());  // the words are those of the targets' own views
  }
  cv::Mat descriptors;
  cv::vconcat(all, descriptors);
  TargetDatabase db;
  db.vocabulary_ = Vocabulary::train(descriptors, options);
  for (auto& [name, model] : targets) {
    std::vector<int> words = db.vocabulary_.quantize(model.descriptors);
    db.targets_.push_back({name, std::move(model), std::move(words), nullptr});
  }
  return db;
}

int TargetDatabase::find(const std::string& name) const {
  for (size_t i = 0; i < targets_.size(); ++i)
    if (targets_[i].name == name) return static_cast<int>(i);
  return -1;
}

void TargetDatabase::save(const std::string& path, const TargetDatabaseSaveOptions& options) const {
  if (targets_.empty() || vocabulary_.size() == 0)
    throw std::invalid_argument("TargetDatabase::save: the database is empty ('" + path + "' not written)");
  if (options.imageQuality < 0 || options.imageQuality > 100)
    throw std::invalid_argument("TargetDatabase::save: image quality " + std::to_string(options.imageQuality) +
                                " (expected 0 for PNG or 1-100 for JPEG; '" + path + "' not written)");
  if (options.maxTiltedKeypoints < -1)
    throw std::invalid_argument("TargetDatabase::save: maxTiltedKeypoints " + std::to_string(options.maxTiltedKeypoints) +
                                " (expected -1 for all or a count; '" + path + "' not written)");
  // Version 3: the vocabulary and the residual quantiser first (a record's descriptors decode
  // with them), then the targets, each record holding its word ids and residual codes.
  std::vector<TargetModel> decoded;  // stored targets, decoded once
  auto modelOf = [&](size_t i) -> const TargetModel& {
    return targets_[i].stored ? decoded[i] : targets_[i].model;
  };
  decoded.resize(targets_.size());
  for (size_t i = 0; i < targets_.size(); ++i)
    if (targets_[i].stored) decoded[i] = targets_[i].stored->decodeStored();
  std::shared_ptr<const ResidualQuantizer> quantizer = quantizer_;
  if (!quantizer) quantizer = std::make_shared<const ResidualQuantizer>(trainQuantizer(modelOf));
  binary::Writer w;
  const cv::Mat& words = vocabulary_.words();
  w.put<std::uint32_t>(static_cast<std::uint32_t>(words.rows));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(words.cols));
  for (int r = 0; r < words.rows; ++r) w.putBytes(words.ptr<float>(r), static_cast<size_t>(words.cols) * sizeof(float));
  const cv::Mat& codebooks = quantizer->codebooks();
  w.put<std::uint32_t>(static_cast<std::uint32_t>(quantizer->subvectors()));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(quantizer->centroids()));
  for (int r = 0; r < codebooks.rows; ++r)
    w.putBytes(codebooks.ptr<float>(r), static_cast<size_t>(codebooks.cols) * sizeof(float));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(targets_.size()));
  for (size_t i = 0; i < targets_.size(); ++i) {
    const DatabaseTarget& t = targets_[i];
    w.putString(t.name);
    binary::Writer record;
    const TargetModel& model = modelOf(i);
    const int cap = options.maxTiltedKeypoints;
    if (cap >= 0 && model.tiltedKeypoints > cap) {
      const auto [capped, cappedWords] = capTilted(model, t.words, cap);
      encodeCompactTarget(capped, {options.imageQuality, quantizer.get(), &cappedWords}, record);
    } else {
      encodeCompactTarget(model, {options.imageQuality, quantizer.get(), &t.words}, record);
    }
    w.put<std::uint64_t>(record.bytes().size());
    w.putBytes(record.bytes().data(), record.bytes().size());
  }
  binary::writeAtomically(path, binary::container(kMagic, kTargetDatabaseVersion, w.bytes()), "target database");
}

ResidualQuantizer TargetDatabase::trainQuantizer(const std::function<const TargetModel&(size_t)>& modelOf) const {
  // An even sample of every target's descriptors (own views and tilted ones, as stored), at
  // most kQuantizerSample rows: k-means on 100,000 rows of 8 values takes about a second a
  // sub-vector, and more rows changed the codebooks little.
  size_t total = 0;
  for (size_t i = 0; i < targets_.size(); ++i) total += static_cast<size_t>(modelOf(i).descriptors.rows);
  const size_t stride = std::max<size_t>(1, (total + kQuantizerSample - 1) / kQuantizerSample);
  cv::Mat sample;
  std::vector<int> sampleWords;
  size_t at = 0;
  for (size_t i = 0; i < targets_.size(); ++i) {
    const cv::Mat& d = modelOf(i).descriptors;
    for (int r = 0; r < d.rows; ++r, ++at)
      if (at % stride == 0) {
        sample.push_back(d.row(r));
        sampleWords.push_back(targets_[i].words[static_cast<size_t>(r)]);
      }
  }
  return ResidualQuantizer::train(sample, sampleWords, vocabulary_.words());
}

TargetDatabase TargetDatabase::load(const std::string& path, const TargetDatabaseLoadOptions& options) {
  const std::string what = "target database '" + path + "'";
  auto file = std::make_shared<const MappedFile>(path, "target database");
  // The checked pages leave the resident memory as the checksum goes (MappedFile::release): a
  // 55 MB database is not resident at once while it loads.
  const auto [payload, size] = binary::payloadOf(
      file->data(), file->size(), kMagic, kTargetDatabaseVersion, what, "target database",
      "rebuild it with this nft_train", kOldestTargetDatabaseVersion,
      [&](const unsigned char* chunk, size_t bytes) { file->release(chunk, bytes); });
  const std::uint32_t version = binary::versionOf(file->data(), file->size());
  const bool compact = version >= 2;
  const bool keep = compact && options.keepCompact;
  const bool geometry = version >= 4;  // in each record; planar before
  binary::Reader r(payload, size, what);
  TargetDatabase db;
  // A table of f32 values read from the file: each a number within ±kMaxWordValue.
  const auto checkValues = [&](const cv::Mat& values, const char* rowName) {
    cv::Point at;
    if (!cv::checkRange(values, true, &at, -kMaxWordValue, kMaxWordValue))
      r.fail(cv::format("%s %d holds %g, not a number in [%g, %g]", rowName, at.y,
                        static_cast<double>(values.at<float>(at)), -kMaxWordValue, kMaxWordValue));
  };
  // The vocabulary: K (u32), D (u32), K × D f32. Version 3 holds it first, followed by the
  // residual quantiser; versions 1 and 2 last, after the targets.
  const auto readVocabulary = [&](bool last) {
    const std::uint32_t k = r.count("word count", 65535);
    const std::uint32_t d = r.get<std::uint32_t>("descriptor length");
    if (k == 0 || (d != 64 && d != 36)) r.fail("vocabulary of " + std::to_string(k) + " words of length " + std::to_string(d));
    const size_t bytes = static_cast<size_t>(k) * d * sizeof(float);
    if (last ? bytes != r.remaining() : bytes > r.remaining()) r.fail("the vocabulary's size does not match the bytes left");
    cv::Mat words(static_cast<int>(k), static_cast<int>(d), CV_32F);
    r.getBytes(words.data, bytes, "the vocabulary");
    // A NaN, an infinity or a value whose square overflows made cv::kmeans, building the search
    // tree over more than 10 words, throw a cv::Exception out of load() instead of this error
    // naming the file (found with tests/fuzz/target_database_fuzzer.cpp).
    checkValues(words, "vocabulary word");
    db.vocabulary_ = Vocabulary(words);
  };
  if (version >= 3) {
    readVocabulary(false);
    const int d = db.vocabulary_.words().cols;
    const std::uint32_t m = r.get<std::uint32_t>("sub-vector count");
    const std::uint32_t c = r.get<std::uint32_t>("centroid count");
    if (static_cast<int>(m) != ResidualQuantizer::subvectorsFor(d) || c == 0 ||
        c > static_cast<std::uint32_t>(ResidualQuantizer::kMaxCentroids))
      r.fail("residual quantiser of " + std::to_string(m) + " sub-vectors of " + std::to_string(c) +
             " centroids for descriptors of length " + std::to_string(d));
    const size_t bytes = static_cast<size_t>(m) * c * (static_cast<size_t>(d) / m) * sizeof(float);
    if (bytes > r.remaining()) r.fail("payload ends inside the residual quantiser");
    cv::Mat codebooks(static_cast<int>(m * c), d / static_cast<int>(m), CV_32F);
    r.getBytes(codebooks.data, bytes, "the residual quantiser");
    checkValues(codebooks, "residual quantiser row");
    db.quantizer_ = std::make_shared<const ResidualQuantizer>(db.vocabulary_.words(), codebooks, static_cast<int>(m));
  }
  const std::uint32_t count = r.count("target count", kMaxTargets);
  if (count == 0) r.fail("no targets");
  std::set<std::string> names;
  for (std::uint32_t i = 0; i < count; ++i) {
    DatabaseTarget t;
    t.name = r.string("target name", kMaxName);
    if (t.name.empty()) r.fail("target " + std::to_string(i) + " has an empty name");
    // Every later message quotes the name, and what() is a C string: a NUL byte in the name cut
    // those messages short before the file's name and the reason (found by
    // tests/fuzz/target_database_fuzzer.cpp). No image file or list line gives such a name.
    if (t.name.find('\0') != std::string::npos) r.fail("target " + std::to_string(i) + "'s name holds a NUL byte");
    if (!names.insert(t.name).second) r.fail("two targets are named '" + t.name + "'");
    const auto bytes = r.get<std::uint64_t>("model size");
    if (bytes > r.remaining()) r.fail("payload ends inside the model of '" + t.name + "'");
    const unsigned char* model = r.take(static_cast<size_t>(bytes), "a model");
    if (compact) {
      binary::Reader record(model, static_cast<size_t>(bytes), what);
      t.model = decodeCompactTarget(record, t.name, true, db.quantizer_.get(), &t.words, geometry);
      file->release(model, static_cast<size_t>(bytes));
      if (keep) {
        t.stored = std::make_shared<const StoredTarget>(file, model, static_cast<size_t>(bytes), what, t.name, t.model,
                                                        db.quantizer_, geometry);
        t.model = TargetModel{};
      }
    } else {
      t.model = decodeTargetModel(std::vector<unsigned char>(model, model + bytes), "'" + t.name + "' in '" + path + "'");
    }
    if (version < 3) {  // the word ids follow the record
      const std::uint32_t words = r.count("word count", kMaxKeypoints);
      const size_t keypoints = t.stored ? static_cast<size_t>(t.stored->keypointCount()) : t.model.keypoints.size();
      if (words != keypoints)
        r.fail("target '" + t.name + "' has " + std::to_string(keypoints) + " keypoints but " +
               std::to_string(words) + " word ids");
      t.words.resize(words);
      for (int& id : t.words) id = r.get<std::uint16_t>("word id");
    }
    db.targets_.push_back(std::move(t));
  }
  if (version < 3) readVocabulary(true);
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " unexpected bytes after the targets");
  // Nothing of the file is needed resident any more: the stored targets read their records
  // again when decoded.
  file->release(file->data(), file->size());
  const int k = db.vocabulary_.size(), d = db.vocabulary_.words().cols;
  for (const DatabaseTarget& t : db.targets_) {
    const int length = t.stored ? descriptorLength(t.stored->descriptorType()) : t.model.descriptors.cols;
    if (length != d) r.fail("target '" + t.name + "' has descriptors of another length than the vocabulary");
    for (int id : t.words)
      if (id >= k) r.fail("target '" + t.name + "' has word " + std::to_string(id) + " of " + std::to_string(k));
  }
  return db;
}

std::vector<std::tuple<std::string, std::string, double>> TargetDatabase::lookAlikes(double threshold) const {
  InvertedIndex index(vocabulary_.size());
  for (size_t i = 0; i < targets_.size(); ++i) index.add(static_cast<int>(i), targets_[i].words);
  std::vector<std::tuple<std::string, std::string, double>> pairs;
  for (size_t i = 0; i < targets_.size(); ++i) {
    const auto best = index.query(targets_[i].words, 1, {static_cast<int>(i)});
    if (best.empty() || best[0].second < threshold) continue;
    const std::string& other = targets_[static_cast<size_t>(best[0].first)].name;
    const bool seen = std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) {
      return std::get<0>(p) == other && std::get<1>(p) == targets_[i].name;
    });
    if (!seen) pairs.emplace_back(targets_[i].name, other, best[0].second);
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return std::get<2>(a) > std::get<2>(b); });
  return pairs;
}

}  // namespace nft::detection
