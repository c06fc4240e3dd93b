// The code the guide (docs/) shows, compiled and run: each block between a pair of
// "//! [name]" markers is included in a page by Doxygen's \snippet (docs/app_guide.md,
// docs/design.md), and each test checks that the block does what the page says, on the built-in
// synthetic sequence (synthetic/synthetic_sequence.h: opencv-doc's graf1.png with exact ground
// truth), so no data folder is needed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "detection/fast_detector.h"
#include "detection/gpu_matcher.h"
#include "detection/surf_es.h"
#include "detection/target_trainer.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "nft/nft.h"
#include "support/synchronous_session.h"
#include "synthetic/synthetic_sequence.h"
#include "tracker/camera_calibration.h"
#include "tracker/tracker.h"

namespace {

using nft::replay::SyntheticSequence;
using nft::replay::SyntheticSequenceOptions;

// 40 frames of the default synthetic sequence (640×480), made once.
const SyntheticSequence& sequence() {
  static const SyntheticSequence s = [] {
    SyntheticSequenceOptions o;
    o.frames = 40;
    return SyntheticSequence(o);
  }();
  return s;
}

// The largest distance between found and true corners, pixels.
double cornerError(const std::vector<cv::Point2f>& found, int frame) {
  const auto truth = sequence().corners(frame);
  double worst = 0;
  for (size_t k = 0; k < 4; ++k) worst = std::max(worst, static_cast<double>(cv::norm(found.at(k) - truth[k])));
  return worst;
}

// NV21 bytes of a grey frame: the Y plane, then a neutral interleaved V/U plane.
std::vector<std::uint8_t> nv21Of(const cv::Mat& gray) {
  std::vector<std::uint8_t> bytes(gray.begin<std::uint8_t>(), gray.end<std::uint8_t>());
  bytes.resize(bytes.size() + bytes.size() / 2, 128);
  return bytes;
}

TEST(GuideSnippets, ConfigurationInCodeAndTheErrorsItGives) {
  //! [config_in_code]
  nft::SessionOptions options;                    // or nft::sessionOptionsFromFile("phone.yaml")
  options.config.detector.maxKeypoints = 500;     // detector.max_keypoints in a YAML file
  options.config.tracking.minNcc = 0.75;          // tracking.min_ncc
  nft::Session session(options);
  //! [config_in_code]
  EXPECT_EQ(session.config().detector.maxKeypoints, 500);

  std::string message;
  //! [errors]
  try {
    nft::SessionOptions bad;
    bad.config.tracking.minNcc = 1.5;   // outside [-1, 1]
    nft::Session refused(bad);
  } catch (const nft::ConfigError& e) {  // every error the library throws is an nft::Error
    message = e.what();                  // "<defaults>: tracking.min_ncc = 1.5: expected a number in [-1, 1]"
  }
  //! [errors]
  EXPECT_NE(message.find("tracking.min_ncc = 1.5"), std::string::npos) << message;
  EXPECT_NE(message.find("[-1, 1]"), std::string::npos) << message;
}

TEST(GuideSnippets, ACameraBufferInNv21GivesTheResultOfItsGreyPlane) {
  nft::Session fromMat(nft::testing::synchronous()), fromBuffer(nft::testing::synchronous());
  fromMat.addTarget(sequence().targetImage(), "graf1", 0.20);
  fromBuffer.addTarget(sequence().targetImage(), "graf1", 0.20);
  for (int i = 0; i < 10; ++i) {
    cv::Mat gray;
    cv::cvtColor(sequence().render(i), gray, cv::COLOR_BGR2GRAY);
    const std::vector<std::uint8_t> cameraBytes = nv21Of(gray);
    const long long timestampNs = i * 33'333'333LL;
    nft::Session& session = fromBuffer;
    //! [camera_buffer]
    nft::ImageView view;                          // the camera's buffer, not copied
    view.data = cameraBytes.data();               // NV21: the Y plane, then interleaved V/U
    view.width = 640;
    view.height = 480;
    view.format = nft::PixelFormat::Nv21;         // Android's camera default
    nft::FrameResult result = session.process(view, timestampNs);
    //! [camera_buffer]
    const nft::FrameResult expected = fromMat.process(gray, timestampNs);
    ASSERT_EQ(result.targets[0].found, expected.targets[0].found) << "frame " << i;
    if (expected.targets[0].found) {
      for (size_t k = 0; k < 4; ++k)
        EXPECT_EQ(result.targets[0].corners[k], expected.targets[0].corners[k]) << "frame " << i;
    }
  }
}

TEST(GuideSnippets, AfterTheContextIsLostTrackingGoesOn) {
  nft::Session session(nft::testing::synchronous());
  session.addTarget(sequence().targetImage(), "graf1", 0.20);
  for (int i = 0; i < 20; ++i) {
    if (i == 10) {
      //! [context_loss]
      session.releaseGpu();     // the app pauses (Android: onPause); targets and tracking stay
      // ... the app resumes, its (new) context current on this thread ...
      session.restoreGpu();     // every GL object rebuilt; tracking goes on
      //! [context_loss]
    }
    const nft::FrameResult r = session.process(sequence().render(i));
    ASSERT_TRUE(r.targets[0].found) << "frame " << i;
    EXPECT_LT(cornerError(r.targets[0].corners, i), 3.0) << "frame " << i;
    if (i >= 10) {
      EXPECT_EQ(r.targets[0].state, nft::TrackingState::Tracking) << "frame " << i;
    }
  }
}

TEST(GuideSnippets, TheGlMatricesPutATargetPointWhereItsCornerIs) {
  nft::Session session(nft::testing::synchronous());
  session.addTarget(sequence().targetImage(), "graf1", 0.20);
  nft::FrameResult result;
  for (int i = 0; i < 5; ++i) result = session.process(sequence().render(i));
  ASSERT_TRUE(result.targets[0].found);
  const nft::TargetResult& target = result.targets[0];
  //! [gl_matrices]
  std::array<float, 16> projection = session.projectionMatrix(0.01, 10.0);  // near, far: metres
  std::array<float, 16> view = nft::Session::viewMatrix(target.pose);       // target -> eye
  // glUniformMatrix4fv(location, 1, GL_FALSE, projection.data()) and the same for view: a point
  // of the target (metres, x right, y down its image, z = 0) is drawn where the camera sees it.
  //! [gl_matrices]
  // The target's lower-right corner, (w, h, 0) in metres, through both matrices.
  const double w = 0.20, h = w * sequence().targetImage().rows / sequence().targetImage().cols;
  const double point[4] = {w, h, 0, 1};
  double eye[4] = {0, 0, 0, 0}, clip[4] = {0, 0, 0, 0};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) eye[r] += view[static_cast<size_t>(c * 4 + r)] * point[c];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) clip[r] += projection[static_cast<size_t>(c * 4 + r)] * eye[c];
  const double u = (clip[0] / clip[3] + 1) / 2 * 640 - 0.5;          // window x -> pixel column
  const double v = 480 - (clip[1] / clip[3] + 1) / 2 * 480 - 0.5;    // window y is up
  EXPECT_NEAR(u, target.corners[2].x, 1.0);
  EXPECT_NEAR(v, target.corners[2].y, 1.0);
}

TEST(GuideSnippets, RenderToImageDrawsTheAugmentationsOverTheFrame) {
  nft::Session session(nft::testing::synchronous());
  session.addTarget(sequence().targetImage(), "graf1", 0.20);
  const cv::Mat frame = sequence().render(0);
  //! [render_to_image]
  nft::FrameResult result = session.process(frame);
  cv::Mat picture = session.renderToImage(result);  // BGR, the frame's size: for a video file
  //! [render_to_image]
  ASSERT_TRUE(result.targets[0].found);
  ASSERT_EQ(picture.size(), frame.size());
  // The cube and outline change the picture inside the target's quad.
  cv::Mat diff;
  cv::absdiff(picture, frame, diff);
  EXPECT_GT(cv::countNonZero(diff.reshape(1) > 60), 1000);
}

// The internal pieces of the detection lane, as docs/design.md shows them.
class GuideInternals : public ::testing::Test {
 protected:
  void SetUp() override { context_.emplace(nft::gpu::Context::createHeadless()); }
  void TearDown() override { context_.reset(); }
  std::optional<nft::gpu::Context> context_;
};

TEST_F(GuideInternals, SurfEsDescribesAndTheGpuMatcherMatchesAcrossFrames) {
  cv::Mat frame0, frame1;
  cv::cvtColor(sequence().render(0), frame0, cv::COLOR_BGR2GRAY);
  cv::cvtColor(sequence().render(1), frame1, cv::COLOR_BGR2GRAY);
  std::vector<nft::detection::Keypoint> keypoints = nft::detection::FastDetector().detect(frame0);
  std::vector<nft::detection::Keypoint> keypoints1 = nft::detection::FastDetector().detect(frame1);
  //! [surf_es]
  nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();  // with a GL context current
  nft::detection::SurfEsOptions options;                         // SURF-64, oriented, storage auto
  nft::detection::SurfEs surfEs(caps, options);                  // programs and textures made once
  cv::Mat descriptors = surfEs.describe(frame0, keypoints);      // N x 64 CV_32F, unit rows; angles set
  //! [surf_es]
  //! [gpu_matcher]
  nft::detection::GpuMatcher matcher(caps);
  matcher.setTarget(descriptors);                                // uploaded once
  auto onGpu = surfEs.extract(frame1, keypoints1);               // frame descriptors stay on the GPU
  std::vector<nft::detection::Match> matches = matcher.match(onGpu);  // ratio test 0.8
  //! [gpu_matcher]
  ASSERT_EQ(descriptors.rows, static_cast<int>(keypoints.size()));
  for (int r = 0; r < descriptors.rows; r += 50) EXPECT_NEAR(cv::norm(descriptors.row(r)), 1.0, 1e-3);
  // Matches are right where frame 0's keypoint, mapped by the true homographies, lands on frame 1's.
  const cv::Matx33d h01 = sequence().homography(1) * sequence().homography(0).inv();
  int right = 0;
  for (const auto& m : matches) {
    const auto& a = keypoints1[static_cast<size_t>(m.query)];
    const auto& b = keypoints[static_cast<size_t>(m.target)];
    const cv::Vec3d p = h01 * cv::Vec3d(b.x, b.y, 1);
    right += std::hypot(p[0] / p[2] - a.x, p[1] / p[2] - a.y) < 3.0 ? 1 : 0;
  }
  EXPECT_GT(matches.size(), 50u);
  EXPECT_GT(right, static_cast<int>(matches.size()) * 8 / 10) << right << " of " << matches.size();
}

TEST_F(GuideInternals, TheTrackerFollowsTheSyntheticTarget) {
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  nft::detection::SurfEs surfEs(caps);
  cv::Mat targetGray;
  cv::cvtColor(sequence().targetImage(), targetGray, cv::COLOR_BGR2GRAY);
  const auto describe = [&](const cv::Mat& gray, std::vector<nft::detection::Keypoint>& k) {
    return surfEs.describe(gray, k);
  };
  const nft::detection::TargetModel model = nft::detection::trainTarget(targetGray, {}, describe);
  std::vector<nft::tracker::TrackResult> results;
  //! [tracker]
  nft::tracker::Tracker tracker(caps, model, nft::tracker::defaultCalibration({640, 480}));
  for (int i = 0; i < sequence().frameCount(); ++i) {
    nft::tracker::TrackResult r = tracker.track(sequence().render(i));  // state, found, homography, pose, corners
    results.push_back(r);
  }
  //! [tracker]
  // Found on every frame; the worst corner within 5 px on nearly all (the Session, configured
  // from the YAML defaults, does better: this is the Tracker with its own defaults).
  int within5 = 0;
  for (int i = 0; i < static_cast<int>(results.size()); ++i) {
    ASSERT_TRUE(results[static_cast<size_t>(i)].found) << "frame " << i;
    const double error = cornerError(results[static_cast<size_t>(i)].corners, i);
    EXPECT_LT(error, 10.0) << "frame " << i;
    within5 += error < 5.0 ? 1 : 0;
  }
  EXPECT_GE(within5, sequence().frameCount() * 9 / 10);
}

}  // namespace
