// The whole pipeline on the GLES 2.0 core only: every optional extension masked off (the
// core-only switch: probeCapabilities(true), or NFT_CORE_ONLY=1 for whole programs), as a phone
// without float textures would run it, against the full path of this driver (on llvmpipe: float
// SURF-ES storage and float matcher targets). Training, the detection lane, the two-lane tracker
// and the renderer each run once per path on tmt_bookI; the results must agree within:
//   detection (every 10th of the first 120 frames): the same frames found (at most 1 of 12
//     differs), inlier counts within 5 %, corners within 0.5 px on at least 3 of 4 frames and
//     within 2 px on all. A raw MAGSAC fit moves when one match flips (RGBA8 descriptors are the
//     float ones quantised), so 1 px everywhere is not a property of the detection lane.
//   tracking (the first 120 frames): the same frames found (at most 1 differs), corners within
//     0.5 px on every frame (the tracking lane refines every detection).
//   rendering: the same frames drawn from the same pose: mean abs difference <= 0.5 / 255.
// Measured on llvmpipe (Mesa 22.3.6): detection 12/12 found by both, corners differ by 0.22 px on
// average (11 frames <= 0.41 px, one 1.50 px: 280 vs 279 inliers); tracking 120/120 found by
// both, corners differ by at most 0.005 px; rendering identical (0 / 255). Printed with -V.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include "detection/surf_es.h"
#include "gpu/capabilities.h"
#include "gpu/gpu_test.h"
#include "gpu/texture.h"
#include "render/camera.h"
#include "render/offscreen_target.h"
#include "render/renderer.h"
#include "support/test_data.h"
#include "tracker/camera_calibration.h"
#include "tracker/detection_lane.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"
#include "tracker/tracker.h"

namespace nft {
namespace {

using gpu::Capabilities;
using gpu::Extension;

constexpr double kDetectionCornerTolerancePx = 0.5;     // on 3 of 4 frames
constexpr double kDetectionCornerMaxPx = 2.0;           // on every frame
constexpr double kDetectionInlierTolerance = 0.05;      // relative
constexpr double kTrackingCornerTolerancePx = 0.5;
constexpr double kRenderMeanAbsTolerance = 0.5;  // gray levels of 255

class CoreOnlyTest : public gpu::testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    // The full path is probed with NFT_CORE_ONLY cleared, so the comparison runs (never skips)
    // whatever the environment says.
    const char* env = std::getenv("NFT_CORE_ONLY");
    const std::string saved = env ? env : "";
    ::unsetenv("NFT_CORE_ONLY");
    full_ = gpu::probeCapabilities();
    if (env) ::setenv("NFT_CORE_ONLY", saved.c_str(), 1);
    core_ = gpu::probeCapabilities(/*coreOnly=*/true);
  }
  const Capabilities& full() const { return full_; }
  const Capabilities& core() const { return core_; }

 private:
  Capabilities full_, core_;
};

double maxCornerDistance(const std::vector<cv::Point2f>& a, const std::vector<cv::Point2f>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, cv::norm(a[i] - b[i]));
  return worst;
}

std::vector<cv::Mat> firstTmtFrames(int count) {
  const std::string path = (testing::dataDir() / "video/tmt_bookI/video.mp4").string();
  cv::VideoCapture video(path);
  if (!video.isOpened()) throw std::runtime_error("cannot open " + path);
  std::vector<cv::Mat> frames;
  for (cv::Mat frame; static_cast<int>(frames.size()) < count && video.read(frame);) frames.push_back(frame.clone());
  return frames;
}

TEST_F(CoreOnlyTest, MasksEveryExtensionAndTheEnvironmentSwitchDoesToo) {
  EXPECT_TRUE(core().coreOnly);
  for (int i = 0; i < gpu::kExtensionCount; ++i) EXPECT_FALSE(core().has(static_cast<Extension>(i)));
  EXPECT_FALSE(core().floatRenderable);
  EXPECT_FALSE(core().halfFloatRenderable);

  const char* previous = std::getenv("NFT_CORE_ONLY");
  const std::string saved = previous ? previous : "";
  ::setenv("NFT_CORE_ONLY", "1", 1);
  const Capabilities fromEnv = gpu::probeCapabilities();
  ::setenv("NFT_CORE_ONLY", "0", 1);
  const Capabilities notFromEnv = gpu::probeCapabilities();
  if (previous) ::setenv("NFT_CORE_ONLY", saved.c_str(), 1);
  else ::unsetenv("NFT_CORE_ONLY");
  EXPECT_TRUE(fromEnv.coreOnly);
  EXPECT_FALSE(fromEnv.floatRenderable);
  for (int i = 0; i < gpu::kExtensionCount; ++i) EXPECT_FALSE(fromEnv.has(static_cast<Extension>(i)));
  EXPECT_FALSE(notFromEnv.coreOnly) << "NFT_CORE_ONLY=0 must not mask anything";
}

TEST_F(CoreOnlyTest, WholePipelineMatchesTheFullPathOnTmtBook) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const bool differs = full().floatRenderable || full().halfFloatRenderable || full().has(Extension::OesTextureFloat);
  std::cout << "full path: " << full().glRenderer << (differs ? ", float storage" : ", no float textures either")
            << "; core-only path: RGBA8 storage\n";

  const detection::TargetModel fullModel = testing::trainTmtTarget(full());
  const detection::TargetModel coreModel = testing::trainTmtTarget(core());
  const tracker::CameraCalibration calibration = tracker::defaultCalibration(testing::kTmtFrameSize);
  const std::vector<cv::Mat> frames = firstTmtFrames(120);
  ASSERT_EQ(frames.size(), 120u);
  std::cout << "target keypoints: full " << fullModel.keypoints.size() << ", core-only " << coreModel.keypoints.size()
            << "\n";

  // Detection lane alone on every 10th frame.
  {
    tracker::DetectionLane fullLane(full(), fullModel, calibration);
    tracker::DetectionLane coreLane(core(), coreModel, calibration);
    int both = 0, disagree = 0, close = 0;
    double worst = 0, sum = 0, worstInliers = 0;
    for (size_t i = 0; i < frames.size(); i += 10) {
      const std::optional<tracker::Detection> a = fullLane.detect(frames[i]);
      const std::optional<tracker::Detection> b = coreLane.detect(frames[i]);
      if (a.has_value() != b.has_value()) {
        ++disagree;
        continue;
      }
      if (!a) continue;
      ++both;
      const double d = maxCornerDistance(a->corners, b->corners);
      std::cout << "  frame " << i << ": inliers " << a->inliers << " / " << b->inliers << ", corners differ by up to "
                << d << " px\n";
      worst = std::max(worst, d);
      sum += d;
      close += d <= kDetectionCornerTolerancePx ? 1 : 0;
      worstInliers = std::max(worstInliers, std::abs(a->inliers - b->inliers) / static_cast<double>(a->inliers));
    }
    std::cout << "detection, 12 frames: both found " << both << ", found by one path only " << disagree
              << "; corner difference max " << worst << " px, mean " << (both ? sum / both : 0) << " px\n";
    EXPECT_GE(both, 6);
    EXPECT_LE(disagree, 1);
    EXPECT_GE(4 * close, 3 * both) << close << " of " << both << " frames within " << kDetectionCornerTolerancePx << " px";
    EXPECT_LE(worst, kDetectionCornerMaxPx);
    EXPECT_LE(worstInliers, kDetectionInlierTolerance);
  }

  // The two-lane tracker over 120 frames, and the renderer on each path from the full path's pose.
  tracker::Tracker fullTracker(full(), fullModel, calibration);
  tracker::Tracker coreTracker(core(), coreModel, calibration);
  render::Camera camera;
  camera.K = calibration.K;
  camera.imageSize = calibration.imageSize;
  const cv::Size2d targetSize{0.20, 0.20 * fullModel.image.rows / fullModel.image.cols};
  render::Renderer fullRenderer(full(), camera, targetSize);
  render::Renderer coreRenderer(core(), camera, targetSize);
  gpu::Texture fullFrame(full(), camera.imageSize.width, camera.imageSize.height, gpu::TextureFormat::Rgb8);
  gpu::Texture coreFrame(core(), camera.imageSize.width, camera.imageSize.height, gpu::TextureFormat::Rgb8);
  render::OffscreenTarget fullOut(full(), camera.imageSize.width, camera.imageSize.height);
  render::OffscreenTarget coreOut(core(), camera.imageSize.width, camera.imageSize.height);
  int both = 0, disagree = 0, rendered = 0;
  double worst = 0, sum = 0, worstRender = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const tracker::TrackResult a = fullTracker.track(frames[i]);
    const tracker::TrackResult b = coreTracker.track(frames[i]);
    if (a.found != b.found) ++disagree;
    if (a.found && b.found) {
      ++both;
      const double d = maxCornerDistance(a.corners, b.corners);
      worst = std::max(worst, d);
      sum += d;
    }
    if (a.found && i % 20 == 0) {
      const render::Pose pose{a.pose.rvec, a.pose.tvec};
      fullFrame.upload(frames[i].data);
      coreFrame.upload(frames[i].data);
      fullRenderer.drawFrame(fullFrame, pose, fullOut.drawTarget());
      coreRenderer.drawFrame(coreFrame, pose, coreOut.drawTarget());
      cv::Mat diff;
      cv::absdiff(fullOut.read(), coreOut.read(), diff);
      const cv::Scalar mean = cv::mean(diff);
      worstRender = std::max(worstRender, (mean[0] + mean[1] + mean[2]) / 3);
      ++rendered;
    }
  }
  std::cout << "tracker, 120 frames: both found " << both << ", found by one path only " << disagree
            << "; corner difference max " << worst << " px, mean " << (both ? sum / both : 0) << " px\n"
            << "renderer, " << rendered << " frames: largest mean abs difference " << worstRender << " / 255\n";
  EXPECT_GE(both, 100);
  EXPECT_LE(disagree, 1);
  EXPECT_LE(worst, kTrackingCornerTolerancePx);
  EXPECT_GE(rendered, 3);
  EXPECT_LE(worstRender, kRenderMeanAbsTolerance);
}

}  // namespace
}  // namespace nft
