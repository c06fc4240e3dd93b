#include "detection/backend.h"

#include <stdexcept>
#include <string>

#include "detection/cpu_matcher.h"
#include "detection/gpu_matcher.h"
#include "detection/surf_cpu.h"
#include "gpu/capabilities.h"

namespace nft::detection {

std::string_view toString(Backend backend) {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Gpu: return "gpu";
    case Backend::Cpu: return "cpu";
  }
  return "?";
}

std::optional<Backend> parseBackend(std::string_view name) {
  if (name == "auto") return Backend::Auto;
  if (name == "gpu") return Backend::Gpu;
  if (name == "cpu") return Backend::Cpu;
  return std::nullopt;
}

Backend resolveBackend(Backend requested, bool softwareRenderer) {
  if (requested != Backend::Auto) return requested;
  return softwareRenderer ? Backend::Cpu : Backend::Gpu;
}

Backend resolveBackend(Backend requested, const gpu::Capabilities& caps) {
  return resolveBackend(requested, caps.softwareRenderer);
}

namespace {

class SurfEsDescriber final : public KeypointDescriber {
 public:
  SurfEsDescriber(const gpu::Capabilities& caps, const SurfEsOptions& o) : surf_(caps, o) {}
  Backend backend() const override { return Backend::Gpu; }
  DescriptorType type() const override { return surf_.options().type; }
  Orientation orientation() const override { return surf_.options().orientation; }
  FrameDescriptors describe(const cv::Mat& image, std::vector<Keypoint>& keypoints, bool needHost) override {
    FrameDescriptors d;
    d.count = static_cast<int>(keypoints.size());
    if (needHost)
      d.host = surf_.describe(image, keypoints);
    else
      d.device = surf_.extract(image, keypoints);
    return d;
  }

 private:
  SurfEs surf_;
};

class SurfCpuDescriber final : public KeypointDescriber {
 public:
  explicit SurfCpuDescriber(const SurfCpuOptions& o) : surf_(o) {}
  Backend backend() const override { return Backend::Cpu; }
  DescriptorType type() const override { return surf_.options().type; }
  Orientation orientation() const override { return surf_.options().orientation; }
  FrameDescriptors describe(const cv::Mat& image, std::vector<Keypoint>& keypoints, bool) override {
    FrameDescriptors d;
    d.count = static_cast<int>(keypoints.size());
    d.host = surf_.describe(image, keypoints);
    return d;
  }

 private:
  SurfCpu surf_;
};

class GpuTargetMatcher final : public TargetMatcher {
 public:
  GpuTargetMatcher(const gpu::Capabilities& caps, int maxQueries)
      : matcher_(caps, [&] {
          GpuMatcherOptions o;
          o.maxQueries = maxQueries;
          return o;
        }()) {}
  Backend backend() const override { return Backend::Gpu; }
  void setTarget(const cv::Mat& descriptors) override { matcher_.setTarget(descriptors); }
  int targetCount() const override { return matcher_.targetCount(); }
  bool needsHostQueries(const MatchOptions& options) const override { return options.crossCheck; }
  std::vector<Match> match(const FrameDescriptors& queries, const MatchOptions& options) override {
    if (queries.count == 0) return {};
    if (queries.onDevice() && !options.crossCheck) return matcher_.match(queries.device, options);
    if (queries.host.empty())
      throw std::invalid_argument("GPU matcher: cross-checking needs the frame's descriptors on the host");
    return matcher_.match(queries.host, options);
  }

 private:
  GpuMatcher matcher_;
};

class CpuTargetMatcher final : public TargetMatcher {
 public:
  Backend backend() const override { return Backend::Cpu; }
  void setTarget(const cv::Mat& descriptors) override { matcher_.setTarget(descriptors); }
  int targetCount() const override { return matcher_.targetCount(); }
  bool needsHostQueries(const MatchOptions&) const override { return true; }
  std::vector<Match> match(const FrameDescriptors& queries, const MatchOptions& options) override {
    validateMatchOptions(options);
    if (queries.count == 0) return {};
    if (queries.host.empty())
      throw std::invalid_argument("CPU matcher: the frame's descriptors are on the GPU only (describe with needHost)");
    return matcher_.match(queries.host, options);
  }

 private:
  CpuMatcher matcher_;
};

}  // namespace

std::unique_ptr<KeypointDescriber> makeKeypointDescriber(Backend backend, const gpu::Capabilities& caps,
                                                         const SurfEsOptions& surf, int cpuThreads) {
  if (resolveBackend(backend, caps) == Backend::Gpu) return std::make_unique<SurfEsDescriber>(caps, surf);
  SurfCpuOptions o;
  o.type = surf.type;
  o.orientation = surf.orientation;
  o.threads = cpuThreads;
  return std::make_unique<SurfCpuDescriber>(o);
}

std::unique_ptr<TargetMatcher> makeTargetMatcher(Backend backend, const gpu::Capabilities& caps, int maxQueries) {
  if (resolveBackend(backend, caps) == Backend::Gpu) return std::make_unique<GpuTargetMatcher>(caps, maxQueries);
  return std::make_unique<CpuTargetMatcher>();
}

}  // namespace nft::detection
