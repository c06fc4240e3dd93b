#pragma once
// The detection lane's two exchangeable stages behind one small interface each, as OpenCV's
// Feature2D / DescriptorMatcher are: a KeypointDescriber (describe keypoints) and a TargetMatcher
// (match a frame's descriptors against one target's), each with a GPU backend (SurfEs,
// GpuMatcher: GLES2 shaders) and a CPU backend (SurfCpu, CpuMatcher: the same descriptor and the
// same matches, detection/surf_descriptor.h and cpu_matcher.h). The detection lane
// (tracker/detection_lane.h) holds one of each without knowing which.
//
// Why both (../shared/DESIGN.md): where the GLES2 driver is a software rasteriser (Mesa llvmpipe,
// softpipe, SwiftShader: a board without a GPU driver, a CI machine), the "GPU" lanes run on the
// CPU through it, and the CPU lanes compute the same results several times faster there (measured
// on llvmpipe, 800 × 600 tmt_bookI frames, one core: README "Detection backends"). Backend::Auto
// takes the CPU lanes on a software renderer (gpu::isSoftwareRenderer) and the GPU lanes on any
// other.

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/keypoint.h"
#include "detection/match.h"
#include "detection/surf_es.h"

namespace nft::gpu {
struct Capabilities;
}

namespace nft::detection {

/// Where a detection stage runs.
enum class Backend {
  Auto,  ///< "auto": Cpu on a software GLES2 renderer (capability probe), Gpu elsewhere.
  Gpu,   ///< "gpu": GLES2 shaders (SurfEs, GpuMatcher).
  Cpu,   ///< "cpu": SurfCpu, CpuMatcher (OpenCV's BFMatcher).
};

/// "auto", "gpu", "cpu".
std::string_view toString(Backend backend);
/// The Backend of "auto" / "gpu" / "cpu" (exact, lower case), std::nullopt otherwise.
std::optional<Backend> parseBackend(std::string_view name);

/// What `requested` means on a device: Gpu and Cpu as they are; Auto → Cpu where
/// `softwareRenderer` (gpu::Capabilities::softwareRenderer, gpu::isSoftwareRenderer(GL_RENDERER)),
/// else Gpu. Never returns Auto. Pure.
Backend resolveBackend(Backend requested, bool softwareRenderer);
/// The same with the probe's verdict: resolveBackend(requested, caps.softwareRenderer).
Backend resolveBackend(Backend requested, const gpu::Capabilities& caps);

/// One frame's descriptors, from a KeypointDescriber: on the host, on the GPU, or both.
struct FrameDescriptors {
  /// Number of descriptors (= keypoints described).
  int count = 0;
  /// N × descriptorLength CV_32F, row i for keypoints[i], unit L2 norm (zero rows for uniform
  /// patches). Empty when the descriptors were left on the GPU only.
  cv::Mat host;
  /// SurfEs's output texture (layout in surf_es.h), valid until the describer's next call;
  /// texture == nullptr when the descriptors are on the host only.
  GpuDescriptors device;
  bool onHost() const { return count == 0 || !host.empty(); }
  bool onDevice() const { return device.texture != nullptr; }
};

/// Computes SURF descriptors (detection/surf_descriptor.h) of keypoints of a frame.
class KeypointDescriber {
 public:
  virtual ~KeypointDescriber() = default;
  /// Gpu or Cpu (never Auto).
  virtual Backend backend() const = 0;
  /// SURF-64 or SURF-36, oriented or upright.
  virtual DescriptorType type() const = 0;
  virtual Orientation orientation() const = 0;
  /// Describes `keypoints` of `image` (CV_8UC1 or CV_8UC3 BGR). Oriented keypoints with angle < 0
  /// get an intensity-centroid angle; it is written back to `keypoints` wherever the descriptors
  /// reach the host. `needHost`: the caller needs FrameDescriptors::host (a GPU describer then
  /// reads the descriptors back; otherwise it leaves them on the GPU only). A CPU describer
  /// always fills `host`.
  /// @throws std::invalid_argument for a bad image or keypoint (as SurfEs / SurfCpu do).
  virtual FrameDescriptors describe(const cv::Mat& image, std::vector<Keypoint>& keypoints, bool needHost) = 0;
};

/// Nearest-neighbour matching of frame descriptors against one target's descriptors (L2, the two
/// nearest, Lowe's ratio test, optional cross-check: detection/match.h).
class TargetMatcher {
 public:
  virtual ~TargetMatcher() = default;
  /// Gpu or Cpu (never Auto).
  virtual Backend backend() const = 0;
  /// Sets the target: M × D CV_32F (D = 64 or 36). @throws std::invalid_argument naming a wrong
  /// type or length.
  virtual void setTarget(const cv::Mat& descriptors) = 0;
  virtual int targetCount() const = 0;
  /// Whether match() with `options` needs the queries on the host (FrameDescriptors::host): the
  /// CPU matcher always; the GPU matcher only to cross-check (its transposed search reads the
  /// queries from the host).
  virtual bool needsHostQueries(const MatchOptions& options) const = 0;
  /// The accepted matches (ratio test, and cross-check with options.crossCheck), in query order.
  /// Match::query indexes the frame's keypoints, Match::target the target's descriptor rows.
  /// @throws std::invalid_argument for queries not where needsHostQueries() says they must be,
  ///   a descriptor type other than the target's, or options out of range.
  virtual std::vector<Match> match(const FrameDescriptors& queries, const MatchOptions& options) = 0;
};

/// A describer of `backend` (Auto resolved by caps): Gpu → SurfEs built with `surf` (needs the GL
/// context current in every call and at destruction); Cpu → SurfCpu with surf.type and
/// surf.orientation, `cpuThreads` as SurfCpuOptions::threads (0: OpenCV's pool, which
/// cv::setNumThreads bounds). @throws what SurfEs / SurfCpu constructors throw.
std::unique_ptr<KeypointDescriber> makeKeypointDescriber(Backend backend, const gpu::Capabilities& caps,
                                                         const SurfEsOptions& surf, int cpuThreads = 0);
/// A matcher of `backend` (Auto resolved by caps) for at most `maxQueries` queries per call:
/// Gpu → GpuMatcher (GL context current in every call); Cpu → CpuMatcher.
/// @throws std::invalid_argument for maxQueries out of GpuMatcher's range (Gpu only).
std::unique_ptr<TargetMatcher> makeTargetMatcher(Backend backend, const gpu::Capabilities& caps, int maxQueries);

}  // namespace nft::detection
