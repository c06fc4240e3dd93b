// Instant targets (nft::Session::addTargetFromFrame, session/frame_quad.h): a quad of a real
// frame becomes a target that the next frames track without a detection — started as the TMT and
// POT benchmarks start a tracker, from the first frame's ground-truth quad —, bad quads are
// refused naming what is wrong, and targets already tracked go on being tracked.
#include <gtest/gtest.h>

#include <cstring>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "nft/nft.h"
#include "session/frame_quad.h"
#include "support/synchronous_session.h"
#include "support/test_data.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"

namespace nft {
namespace {

std::vector<cv::Mat> readTmtFrames(int n) {
  cv::VideoCapture video((testing::dataDir() / "video/tmt_bookI/video.mp4").string());
  std::vector<cv::Mat> frames;
  cv::Mat f;
  while (static_cast<int>(frames.size()) < n && video.read(f)) frames.push_back(f.clone());
  return frames;
}

std::vector<cv::Point2f> quadOf(const testing::TmtFrame& f) { return {f.corners.begin(), f.corners.end()}; }

/// The message of the nft::InputError `call` throws ("" if none).
template <class F>
std::string inputError(F&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(InstantTarget, TracksFromTheFirstFramesQuadWithoutADetection) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::vector<testing::TmtFrame> truth = testing::loadTmtGroundTruth();
  const std::vector<cv::Mat> frames = readTmtFrames(120);
  ASSERT_EQ(frames.size(), 120u);
  Session session(nft::testing::synchronous());
  const TargetId id = session.addTargetFromFrame(frames[0], quadOf(truth[0]), "book", 0.2);
  const TargetInfo info = session.target(id);
  EXPECT_EQ(info.name, "book");
  EXPECT_EQ(info.source, "<frame>");
  EXPECT_TRUE(info.trained);
  // The rectified size: the quad's longer top/bottom and left/right sides (about target.png's
  // 134 × 190, which is frame 1 rectified to the same corners).
  EXPECT_NEAR(info.originalSize.width, 134, 6);
  EXPECT_NEAR(info.originalSize.height, 190, 6);
  ASSERT_TRUE(session.calibration().has_value());
  EXPECT_EQ(session.calibration()->imageSize, cv::Size(800, 600));

  int within5 = 0;
  for (size_t i = 1; i < frames.size(); ++i) {
    const FrameResult r = session.process(frames[i]);
    ASSERT_EQ(r.targets.size(), 1u);
    const TargetResult& t = r.targets[0];
    if (i == 1) {  // followed from the quad by the tracking lane: no FAST, no descriptors
      EXPECT_EQ(t.state, TrackingState::Tracking);
      EXPECT_EQ(r.timings.fast, 0.0);
      EXPECT_EQ(r.timings.describe, 0.0);
    }
    if (t.found && testing::alignmentError(t.corners, truth[i].corners) <= 5.0) ++within5;
  }
  EXPECT_EQ(within5, 119) << "frames 2-120 within 5 px of gt.tsv";
}

TEST(InstantTarget, ItsHomographyPutsTheTargetImageOnTheQuad) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::vector<testing::TmtFrame> truth = testing::loadTmtGroundTruth();
  const cv::Mat frame = readTmtFrames(1).at(0);
  const std::vector<cv::Point2f> quad = quadOf(truth[0]);
  // The same frame again: the tracker finds the target where the quad says.
  Session session(nft::testing::synchronous());
  session.addTargetFromFrame(frame, quad, "book");
  const FrameResult r = session.process(frame);
  ASSERT_TRUE(r.targets.at(0).found);
  EXPECT_LT(testing::alignmentError(r.targets[0].corners, truth[0].corners), 1.0);
  // The rectification itself: corners of the rectified image land on the quad's corners.
  const cv::Size size = session::rectifiedSize(quad);
  const cv::Matx33d H = session::quadHomography(size, quad);
  const cv::Point2f corners[4] = {{0, 0}, {static_cast<float>(size.width), 0},
                                  {static_cast<float>(size.width), static_cast<float>(size.height)},
                                  {0, static_cast<float>(size.height)}};
  for (int k = 0; k < 4; ++k) {
    const cv::Vec3d p = H * cv::Vec3d(corners[k].x, corners[k].y, 1.0);
    EXPECT_NEAR(p[0] / p[2], quad[static_cast<size_t>(k)].x, 1e-3);
    EXPECT_NEAR(p[1] / p[2], quad[static_cast<size_t>(k)].y, 1e-3);
  }
}

TEST(InstantTarget, AGrayPlaneInCallerMemoryWorksAsACvMat) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::vector<testing::TmtFrame> truth = testing::loadTmtGroundTruth();
  const std::vector<cv::Mat> frames = readTmtFrames(10);
  cv::Mat gray;
  cv::cvtColor(frames[0], gray, cv::COLOR_BGR2GRAY);
  // NV21: the Y plane is the grey frame, chroma neutral.
  const int stride = gray.cols + 32;
  std::vector<std::uint8_t> nv21(static_cast<size_t>(stride) * gray.rows + static_cast<size_t>(gray.cols) * gray.rows / 2,
                                 128);
  for (int r = 0; r < gray.rows; ++r)
    std::memcpy(&nv21[static_cast<size_t>(r) * stride], gray.ptr(r), static_cast<size_t>(gray.cols));
  ImageView view;
  view.data = nv21.data();
  view.width = gray.cols;
  view.height = gray.rows;
  view.stride = stride;
  view.format = PixelFormat::Nv21;
  Session fromView(nft::testing::synchronous()), fromMat(nft::testing::synchronous());
  fromView.addTargetFromFrame(view, quadOf(truth[0]), "book");
  fromMat.addTargetFromFrame(gray, quadOf(truth[0]), "book");
  for (int i = 1; i < 10; ++i) {
    const FrameResult a = fromView.process(frames[static_cast<size_t>(i)]);
    const FrameResult b = fromMat.process(frames[static_cast<size_t>(i)]);
    ASSERT_TRUE(a.targets.at(0).found && b.targets.at(0).found) << "frame " << i;
    EXPECT_EQ(a.targets[0].corners, b.targets[0].corners) << "frame " << i;
  }
}

TEST(InstantTarget, TargetsAlreadyTrackedGoOnBeingTracked) {
  NFT_REQUIRE_DATA("video/tmt_bookI/video.mp4");
  const std::vector<testing::TmtFrame> truth = testing::loadTmtGroundTruth();
  const std::vector<cv::Mat> frames = readTmtFrames(40);
  Session session(nft::testing::synchronous());
  session.addTarget((testing::dataDir() / "video/tmt_bookI/target.png").string(), "book");
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(session.process(frames[static_cast<size_t>(i)]).targets.at(0).found);
  // A second target: the left half of the book's quad on frame 20, marked by hand. The book,
  // tracked alone until now, goes on in its own tracking lane: no search for it.
  const auto& q = truth[20].corners;
  const std::vector<cv::Point2f> left = {q[0], (q[0] + q[1]) * 0.5f, (q[3] + q[2]) * 0.5f, q[3]};
  session.addTargetFromFrame(frames[20], left, "left half");
  const FrameResult r = session.process(frames[21]);
  ASSERT_EQ(r.targets.size(), 2u);
  for (const TargetResult& t : r.targets) {
    EXPECT_TRUE(t.found) << t.name;
    EXPECT_EQ(t.state, TrackingState::Tracking) << t.name;
  }
  EXPECT_LT(testing::alignmentError(r.targets[0].corners, truth[21].corners), 5.0);
  // And back to one: removing the book, the half goes on being tracked.
  session.removeTarget(r.targets[0].id);
  const FrameResult one = session.process(frames[22]);
  ASSERT_EQ(one.targets.size(), 1u);
  EXPECT_TRUE(one.targets[0].found);
  EXPECT_EQ(one.targets[0].state, TrackingState::Tracking);
}

TEST(InstantTarget, BadQuadsAreRefusedNamingWhatIsWrong) {
  const cv::Size size(640, 480);
  cv::Mat frame(size, CV_8UC1);
  cv::randu(frame, 0, 255);
  cv::GaussianBlur(frame, frame, cv::Size(3, 3), 0);  // texture that trains
  Session session(nft::testing::synchronous());
  const std::vector<cv::Point2f> good = {{100, 100}, {300, 110}, {290, 300}, {110, 290}};
  const auto refused = [&](const std::vector<cv::Point2f>& quad) {
    return inputError([&] { session.addTargetFromFrame(frame, quad, "poster"); });
  };
  EXPECT_NE(refused({{100, 100}, {300, 100}, {300, 300}}).find("quad has 3 corners: expected 4"), std::string::npos);
  EXPECT_NE(refused({{100, 100}, {700, 100}, {300, 300}, {100, 300}}).find("upper-right) (700, 100) is outside the 640x480 frame"),
            std::string::npos);
  EXPECT_NE(refused({{100, 100}, {300, 100}, {300, 300}, {100, -3}}).find("is outside"), std::string::npos);
  const std::string crossing = refused({{100, 100}, {300, 300}, {300, 100}, {100, 300}});
  EXPECT_NE(crossing.find("not convex and clockwise"), std::string::npos) << crossing;
  EXPECT_NE(refused({{100, 100}, {100, 300}, {300, 300}, {300, 100}}).find("not convex and clockwise"),
            std::string::npos)
      << "counter-clockwise (mirrored)";
  EXPECT_NE(refused({{100, 100}, {300, 100}, {150, 150}, {100, 300}}).find("not convex and clockwise at its lower-right"),
            std::string::npos)
      << "reflex corner";
  EXPECT_NE(refused({{100, 100}, {120, 100}, {120, 200}, {100, 200}}).find("too small: its side from the upper-left to the upper-right corner is 20 px"),
            std::string::npos);
  EXPECT_NE(refused({{100, 100}, {300, 100}, {300, std::nanf("")}, {100, 300}}).find("not finite"),
            std::string::npos);
  // Too plain: a flat region.
  cv::Mat flat = frame.clone();
  flat(cv::Rect(400, 200, 200, 200)).setTo(128);
  const std::string plain = inputError(
      [&] { session.addTargetFromFrame(flat, {{410, 210}, {590, 210}, {590, 390}, {410, 390}}, "wall"); });
  EXPECT_NE(plain.find("'wall'"), std::string::npos) << plain;
  EXPECT_NE(plain.find("too plain"), std::string::npos) << plain;
  // None of these changed anything: no target, the frame size not fixed.
  EXPECT_TRUE(session.targets().empty());
  EXPECT_FALSE(session.calibration().has_value());
  // A good quad is taken, and then a frame of another size is refused.
  session.addTargetFromFrame(frame, good, "poster");
  EXPECT_EQ(session.targets().size(), 1u);
  EXPECT_NE(inputError([&] { session.addTargetFromFrame(cv::Mat(240, 320, CV_8UC1, cv::Scalar(0)), good, "small"); })
                .find("frame size 320x240 differs"),
            std::string::npos);
  EXPECT_NE(refused(good).find("the name 'poster' is taken"), std::string::npos);
  EXPECT_EQ(session.targets().size(), 1u);
  // An unnamed one gets a name of its own.
  const TargetId unnamed = session.addTargetFromFrame(frame, {{350, 100}, {600, 100}, {600, 400}, {350, 400}});
  EXPECT_EQ(session.target(unnamed).name, "frame target 2");
}

}  // namespace
}  // namespace nft
