// The final refinement's basin on real frames (issue 45, Deliver 5): started 5–10 px off, the
// dense alignment (tracker/homography_refiner.h) must land within 1 px of where it lands when
// started from the truth, on tmt_bookI (gt.tsv's corners), cmu_book and opencv-doc's box.mp4
// (no per-frame truth: the Session's own result in that frame stands for it, as a refinement
// started there is where the pipeline leaves the target).

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "nft/session.h"
#include "support/synchronous_session.h"
#include "support/test_data.h"
#include "tracker/box_video.h"
#include "tracker/homography_refiner.h"
#include "tracker/tmt_ground_truth.h"
#include "tracker/tmt_target.h"

namespace nft::tracker {
namespace {

/// H with each target corner moved by its own random offset of 5–10 px (frame pixels).
cv::Matx33d offBy5To10Px(const cv::Matx33d& H, cv::Size target, std::mt19937& rng) {
  std::uniform_real_distribution<double> length(5.0, 10.0), angle(0, 2 * CV_PI);
  const float w = static_cast<float>(target.width), h = static_cast<float>(target.height);
  const cv::Point2f from[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  cv::Point2f to[4];
  for (int i = 0; i < 4; ++i) {
    const cv::Vec3d p = H * cv::Vec3d(from[i].x, from[i].y, 1);
    const double l = length(rng), a = angle(rng);
    to[i] = cv::Point2f(static_cast<float>(p[0] / p[2] + l * std::cos(a)), static_cast<float>(p[1] / p[2] + l * std::sin(a)));
  }
  return cv::Matx33d(cv::getPerspectiveTransform(from, to));
}

/// The largest distance between the target corners under G and H, frame pixels.
double cornerDistance(const cv::Matx33d& G, const cv::Matx33d& H, cv::Size target) {
  const double w = target.width, h = target.height;
  double d = 0;
  for (const cv::Vec3d& x : {cv::Vec3d(0, 0, 1), cv::Vec3d(w, 0, 1), cv::Vec3d(w, h, 1), cv::Vec3d(0, h, 1)}) {
    const cv::Vec3d a = G * x, b = H * x;
    d = std::max(d, std::hypot(a[0] / a[2] - b[0] / b[2], a[1] / a[2] - b[1] / b[2]));
  }
  return d;
}

/// Refines from `truth` and from 3 starts 5–10 px off it: each must be accepted and land within
/// 1 px of the first. Returns how many starts did.
int landsWhereTheTruthLands(const HomographyRefiner& refiner, const cv::Mat& frame, const cv::Matx33d& truth,
                            cv::Size target, std::mt19937& rng, const std::string& what) {
  const Refinement fromTruth = refiner.refine(frame, truth);
  EXPECT_TRUE(fromTruth.homography) << what << ": refused from the truth (correlation " << fromTruth.correlation << ")";
  if (!fromTruth.homography) return 0;
  int landed = 0;
  for (int k = 0; k < 3; ++k) {
    const cv::Matx33d start = offBy5To10Px(truth, target, rng);
    const Refinement r = refiner.refine(frame, start);
    const double d = r.homography ? cornerDistance(*r.homography, *fromTruth.homography, target) : HUGE_VAL;
    EXPECT_LE(d, 1.0) << what << ", start " << k << " (" << cornerDistance(start, truth, target)
                      << " px off): " << (r.homography ? "landed " + std::to_string(d) + " px away" : "refused")
                      << " after " << r.iterations << " iterations, correlation " << r.correlation << ", shift " << r.shiftPx << " px";
    landed += d <= 1.0 ? 1 : 0;
  }
  return landed;
}

TEST(RefinerBasin, TmtBookFramesFromFiveToTenPixelsOff) {
  NFT_REQUIRE_DATA("video/tmt_bookI/gt.tsv");
  const cv::Mat target = testing::loadGray("video/tmt_bookI/target.png");
  const HomographyRefiner refiner(target);
  const std::vector<testing::TmtFrame> truth = testing::loadTmtGroundTruth();
  std::mt19937 rng(45);
  int landed = 0;
  for (const testing::TmtVideoFrame& f : testing::loadTmtFrames(50))  // 11 frames, the tilted ones too
    landed += landsWhereTheTruthLands(refiner, f.image, testing::tmtHomography(truth[static_cast<size_t>(f.index)]),
                                      target.size(), rng, "tmt_bookI frame " + std::to_string(f.index));
  EXPECT_EQ(landed, 33);
}

/// Every `step`-th frame of `video` where a synchronous Session finds `targetImage`, with its
/// homography (target pixels → frame pixels), the target's grey image, and the refiner's frames.
struct Found {
  cv::Mat frame;
  cv::Matx33d homography;
};
std::vector<Found> foundFrames(const std::string& video, const cv::Mat& targetImage, int step, int count) {
  nft::Session session(testing::synchronous());
  session.addTarget(targetImage, "target", 0.2);
  cv::VideoCapture capture(video);
  std::vector<Found> found;
  cv::Mat frame;
  for (int i = 0; capture.read(frame) && static_cast<int>(found.size()) < count; ++i) {
    const nft::FrameResult r = session.process(frame);
    if (i % step == 0 && r.targets[0].found) found.push_back({frame.clone(), r.targets[0].homography});
  }
  return found;
}

TEST(RefinerBasin, CmuBookAndBoxFramesFromFiveToTenPixelsOff) {
  NFT_REQUIRE_DATA("video/cmu_book/book.mp4");
  std::mt19937 rng(21);
  const cv::Mat cover = testing::loadGray("video/cmu_book/cv_cover.jpg");
  const std::vector<Found> book = foundFrames((testing::dataDir() / "video/cmu_book/book.mp4").string(), cover, 60, 8);
  ASSERT_GE(book.size(), 6u);
  const HomographyRefiner coverRefiner(cover);
  int landed = 0;
  for (size_t i = 0; i < book.size(); ++i)
    landed += landsWhereTheTruthLands(coverRefiner, book[i].frame, book[i].homography, cover.size(), rng,
                                      "cmu_book found frame " + std::to_string(i));
  EXPECT_EQ(landed, 3 * static_cast<int>(book.size()));

  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "nft_refiner_basin_box";
  const std::filesystem::path video = testing::unpackBoxVideo(folder);
  cv::Mat face;
  cv::cvtColor(testing::boxTopFaceTemplate(video), face, cv::COLOR_BGR2GRAY);
  const std::vector<Found> box = foundFrames(video.string(), face, 40, 8);
  ASSERT_GE(box.size(), 6u);
  const HomographyRefiner faceRefiner(face);
  landed = 0;
  for (size_t i = 0; i < box.size(); ++i)
    landed += landsWhereTheTruthLands(faceRefiner, box[i].frame, box[i].homography, face.size(), rng,
                                      "box.mp4 found frame " + std::to_string(i));
  EXPECT_EQ(landed, 3 * static_cast<int>(box.size()));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace nft::tracker
