// The four extractors behind one interface (see extractors.h).

#include "apps/eval/extractors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <opencv2/features2d.hpp>

#include "detection/fast_detector.h"
#include "detection/surf_cpu.h"
#include "detection/surf_es.h"

namespace nft::eval {

using detection::DescriptorStorage;
using detection::DescriptorType;
using detection::Keypoint;
using detection::Orientation;

namespace {

constexpr double kSiftSizePerScale = 2.0;  // KeyPoint::size = 2σ, σ = s (see extractors.h)
constexpr double kSiftSigma0 = 1.6;        // SIFT's base σ
constexpr int kSiftLayers = 3;             // SIFT's nOctaveLayers default
constexpr double kOrbPatch = 31.0;         // ORB's patchSize default
// The scale FastDetector gives a level-0 corner, and its pyramid factor.
const double kOrbBaseScale = static_cast<double>(detection::FastDetectorOptions{}.baseScale);
const double kOrbFactor = detection::FastDetectorOptions{}.scaleFactor;

std::string orientationName(Orientation o) { return o == Orientation::Upright ? "upright" : "oriented"; }
std::string typeSuffix(DescriptorType t) { return t == DescriptorType::Surf36 ? ":36" : ""; }

std::vector<int> allIndices(size_t n) {
  std::vector<int> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  return idx;
}

class SurfEsExtractor final : public Extractor {
 public:
  SurfEsExtractor(const ExtractorSpec& spec, cv::Size maxImage, int maxKeypoints, const gpu::Capabilities& caps)
      : spec_(spec), surf_(caps, options(spec, maxImage, maxKeypoints)) {}
  std::string label() const override {
    return "surf-es:" + std::string(surf_.storage() == DescriptorStorage::Float ? "float" : "rgba8") + ":p" +
           std::to_string(surf_.precisionBits()) + boxesSuffix() + ":" + orientationName(spec_.orientation) +
           typeSuffix(spec_.type);
  }
  int normType() const override { return cv::NORM_L2; }
  double maxDistance() const override { return 2.0; }
  Described describe(const cv::Mat& gray, const std::vector<Keypoint>& keypoints) override {
    std::vector<Keypoint> copy = keypoints;  // describe() writes the GPU's angles
    return {surf_.describe(gray, copy), allIndices(keypoints.size())};
  }

 private:
  static detection::SurfEsOptions options(const ExtractorSpec& spec, cv::Size maxImage, int maxKeypoints) {
    detection::SurfEsOptions o;
    o.maxWidth = maxImage.width;
    o.maxHeight = maxImage.height;
    o.maxKeypoints = std::max(1, maxKeypoints);
    o.type = spec.type;
    o.orientation = spec.orientation;
    o.storage = spec.storage;
    o.precisionBits = spec.precisionBits;
    o.boxTaps = spec.boxTaps;
    o.quarterBoxes = spec.quarterBoxes;
    return o;
  }
  // ":taps1" or ":lookups" where the box means are not read the default way.
  std::string boxesSuffix() const {
    if (spec_.boxTaps == 1) return ":taps1";
    return spec_.quarterBoxes == detection::QuarterBoxes::Lookups ? ":lookups" : "";
  }
  ExtractorSpec spec_;
  detection::SurfEs surf_;
};

class SurfCpuExtractor final : public Extractor {
 public:
  explicit SurfCpuExtractor(const ExtractorSpec& spec) : spec_(spec), surf_({spec.type, spec.orientation, 0}) {}
  std::string label() const override {
    return "surf-cpu:" + orientationName(spec_.orientation) + typeSuffix(spec_.type);
  }
  int normType() const override { return cv::NORM_L2; }
  double maxDistance() const override { return 2.0; }
  Described describe(const cv::Mat& gray, const std::vector<Keypoint>& keypoints) override {
    std::vector<Keypoint> copy = keypoints;
    return {surf_.describe(gray, copy), allIndices(keypoints.size())};
  }

 private:
  ExtractorSpec spec_;
  detection::SurfCpu surf_;
};

/// SIFT and ORB: OpenCV computes descriptors for given cv::KeyPoints and may drop some.
class OpenCvExtractor final : public Extractor {
 public:
  explicit OpenCvExtractor(const ExtractorSpec& spec)
      : spec_(spec), angles_({DescriptorType::Surf36, Orientation::Oriented, 0}) {
    if (spec.kind == ExtractorKind::Sift) {
      feature_ = cv::SIFT::create();
    } else {
      // Levels up to √2^15 ≈ 181: more than any image here needs; ORB builds only the levels
      // the given keypoints' octaves use.
      feature_ = cv::ORB::create(500, static_cast<float>(kOrbFactor), 16);
    }
  }
  std::string label() const override { return kindName(spec_.kind) + ":" + orientationName(spec_.orientation); }
  int normType() const override { return spec_.kind == ExtractorKind::Orb ? cv::NORM_HAMMING : cv::NORM_L2; }
  double maxDistance() const override { return spec_.kind == ExtractorKind::Orb ? 256.0 : 2.0; }

  Described describe(const cv::Mat& gray, const std::vector<Keypoint>& keypoints) override {
    std::vector<float> angle(keypoints.size(), 0.0f);
    if (spec_.orientation == Orientation::Oriented && !keypoints.empty()) {
      std::vector<Keypoint> copy = keypoints;
      angles_.describe(gray, copy);  // writes the intensity-centroid angle; descriptors unused
      for (size_t i = 0; i < copy.size(); ++i) angle[i] = copy[i].angle;
    }
    std::vector<cv::KeyPoint> cvKeypoints;
    cvKeypoints.reserve(keypoints.size());
    for (size_t i = 0; i < keypoints.size(); ++i) {
      const int index = static_cast<int>(i);
      cvKeypoints.push_back(spec_.kind == ExtractorKind::Sift ? toSiftKeyPoint(keypoints[i], angle[i], index)
                                                              : toOrbKeyPoint(keypoints[i], angle[i], index));
    }
    cv::Mat raw;
    feature_->compute(gray, cvKeypoints, raw);
    // Rows follow the surviving cv::KeyPoints, in whatever order OpenCV left them; class_id
    // says which input each is. Sort back to input order.
    std::vector<std::pair<int, int>> order;  // (input index, row)
    for (size_t r = 0; r < cvKeypoints.size(); ++r) {
      const int id = cvKeypoints[r].class_id;
      if (id < 0 || id >= static_cast<int>(keypoints.size()))
        throw std::logic_error(label() + ": OpenCV returned a keypoint with an unknown class_id");
      order.emplace_back(id, static_cast<int>(r));
    }
    std::sort(order.begin(), order.end());
    Described out;
    out.descriptors.create(static_cast<int>(order.size()), raw.cols, raw.type());
    for (size_t k = 0; k < order.size(); ++k) {
      raw.row(order[k].second).copyTo(out.descriptors.row(static_cast<int>(k)));
      out.kept.push_back(order[k].first);
    }
    if (spec_.kind == ExtractorKind::Sift) {
      // OpenCV scales SIFT rows to norm ~512; unit rows put every float descriptor on [0, 2].
      for (int r = 0; r < out.descriptors.rows; ++r) {
        cv::Mat row = out.descriptors.row(r);
        const double n = cv::norm(row);
        if (n > 0) row *= 1.0 / n;
      }
    }
    return out;
  }

 private:
  ExtractorSpec spec_;
  detection::SurfCpu angles_;
  cv::Ptr<cv::Feature2D> feature_;
};

}  // namespace

cv::KeyPoint toSiftKeyPoint(const Keypoint& k, float angle, int index) {
  const double size = kSiftSizePerScale * k.scale;
  // SIFT's detector sets size = 2·σ0·2^(octave + layer/nOctaveLayers); invert that so the
  // descriptor is computed on the Gaussian level of that blur (OpenCV reads the level from
  // KeyPoint::octave, the region from KeyPoint::size). Octave -1 is SIFT's doubled image.
  const double octaves = std::log2(size / (2.0 * kSiftSigma0));
  int octave = static_cast<int>(std::floor(octaves));
  int layer = static_cast<int>(std::lround((octaves - octave) * kSiftLayers));
  if (layer == kSiftLayers) {
    ++octave;
    layer = 0;
  }
  octave = std::max(octave, -1);
  cv::KeyPoint kp(k.x, k.y, static_cast<float>(size), angle, k.response, (octave & 255) | (layer << 8), index);
  return kp;
}

cv::KeyPoint toOrbKeyPoint(const Keypoint& k, float angle, int index) {
  const double level = std::log(k.scale / kOrbBaseScale) / std::log(kOrbFactor);
  const int octave = std::max(0, static_cast<int>(std::lround(level)));
  const double size = kOrbPatch * std::pow(kOrbFactor, octave);
  return cv::KeyPoint(k.x, k.y, static_cast<float>(size), angle, k.response, octave, index);
}

std::unique_ptr<Extractor> makeExtractor(const ExtractorSpec& spec, cv::Size maxImage, int maxKeypoints,
                                         const gpu::Capabilities* caps) {
  switch (spec.kind) {
    case ExtractorKind::SurfEs:
      if (caps == nullptr) throw std::invalid_argument("surf-es needs a GL context and its capabilities");
      return std::make_unique<SurfEsExtractor>(spec, maxImage, maxKeypoints, *caps);
    case ExtractorKind::SurfCpu: return std::make_unique<SurfCpuExtractor>(spec);
    case ExtractorKind::Sift:
    case ExtractorKind::Orb: return std::make_unique<OpenCvExtractor>(spec);
  }
  throw std::invalid_argument("unknown extractor kind");
}

}  // namespace nft::eval
