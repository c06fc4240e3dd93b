// The Session's pose filter (config tracking.pose_filter; tracker/one_euro_filter.h): corner jitter
// on a still camera — a synthetic one (tmt_bookI's first frame with fresh sensor noise on every
// frame) and the still first 40 frames of tmt_bookI itself — with the filter off and on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "nft/nft.h"
#include "suite/ground_truth.h"
#include "support/synchronous_session.h"
#include "support/test_data.h"

namespace {

const char* kVideo = "video/tmt_bookI/video.mp4";

std::string bookPath() { return (nft::testing::dataDir() / "video/tmt_bookI/target.png").string(); }

nft::SessionOptions withFilter(bool on) {
  nft::SessionOptions o = nft::testing::synchronous();
  o.config.tracking.poseFilter = on;
  return o;
}

/// Mean over the 8 corner coordinates of their standard deviation over `quads` about `reference`
/// (per frame; pixels).
double jitterPx(const std::vector<std::vector<cv::Point2f>>& quads,
                const std::vector<std::vector<cv::Point2f>>& reference) {
  double sum = 0;
  for (size_t k = 0; k < 8; ++k) {
    double mean = 0, sq = 0;
    for (size_t i = 0; i < quads.size(); ++i) {
      const cv::Point2f d = quads[i][k / 2] - reference[i][k / 2];
      const double v = k % 2 ? d.y : d.x;
      mean += v;
      sq += v * v;
    }
    const double n = static_cast<double>(quads.size());
    mean /= n;
    sum += std::sqrt(std::max(0.0, sq / n - mean * mean));
  }
  return sum / 8;
}

TEST(PoseFilter, AStillNoisyCameraJittersAtLeastThreeTimesLess) {
  NFT_REQUIRE_DATA(kVideo);
  cv::VideoCapture video((nft::testing::dataDir() / kVideo).string());
  cv::Mat still;
  ASSERT_TRUE(video.read(still));
  cv::Mat gray;
  cv::cvtColor(still, gray, cv::COLOR_BGR2GRAY);
  double jitter[2] = {0, 0};
  for (const bool on : {false, true}) {
    nft::Session s(withFilter(on));
    s.addTarget(bookPath(), "book");
    cv::RNG rng(7);  // the same noise for both runs
    std::vector<std::vector<cv::Point2f>> quads;
    for (int i = 0; i < 120; ++i) {
      cv::Mat noise(gray.size(), CV_16SC1), noisy;
      rng.fill(noise, cv::RNG::NORMAL, 0, 6);  // sensor noise, σ = 6 grey levels
      cv::Mat wide;
      gray.convertTo(wide, CV_16SC1);
      cv::add(wide, noise, wide);
      wide.convertTo(noisy, CV_8UC1);
      const nft::FrameResult r = s.process(noisy, (i + 1) * 33'333'333LL);
      ASSERT_TRUE(r.targets[0].found) << "frame " << i;
      if (i >= 30) quads.push_back(r.targets[0].corners);
    }
    const std::vector<std::vector<cv::Point2f>> zero(quads.size(), std::vector<cv::Point2f>(4));
    jitter[on] = jitterPx(quads, zero);
  }
  std::printf("still noisy camera: corner jitter %.4f px without the filter, %.4f px with it (%.1f x)\n", jitter[0],
              jitter[1], jitter[0] / jitter[1]);
  EXPECT_GT(jitter[0], 0.0);
  EXPECT_GT(jitter[0] / jitter[1], 3.0);
}

TEST(PoseFilter, TheStillStartOfTmtBookJittersLess) {
  NFT_REQUIRE_DATA(kVideo);
  // Frames 10-40: the ground truth's corners move under 0.07 px a frame (and 0.03 px on average):
  // what the corners move from frame to frame beyond that is jitter. Measured as the root mean
  // square of the corners' frame-to-frame displacement.
  const std::vector<nft::replay::QuadCorners> truth =
      nft::replay::loadGroundTruth((nft::testing::dataDir() / "video/tmt_bookI/gt.tsv").string());
  double rms[2] = {0, 0}, truthRms = 0;
  for (const bool on : {false, true}) {
    cv::VideoCapture video((nft::testing::dataDir() / kVideo).string());
    nft::Session s(withFilter(on));
    s.addTarget(bookPath(), "book");
    std::vector<cv::Point2f> last;
    double sum = 0, truthSum = 0;
    int n = 0;
    cv::Mat f;
    for (int i = 0; i <= 40 && video.read(f); ++i) {
      const nft::FrameResult r = s.process(f, (i + 1) * 33'333'333LL);
      ASSERT_TRUE(r.targets[0].found);
      if (i > 10)
        for (size_t k = 0; k < 4; ++k) {
          const cv::Point2f d = r.targets[0].corners[k] - last[k];
          const cv::Point2f g = truth[static_cast<size_t>(i)][k] - truth[static_cast<size_t>(i) - 1][k];
          sum += d.dot(d);
          truthSum += g.dot(g);
          ++n;
        }
      last = r.targets[0].corners;
    }
    rms[on] = std::sqrt(sum / n);
    truthRms = std::sqrt(truthSum / n);
  }
  std::printf("tmt_bookI frames 10-40: corners move %.4f px a frame (rms) without the filter, %.4f px with it "
              "(%.1f x); the ground truth's %.4f px\n",
              rms[0], rms[1], rms[0] / rms[1], truthRms);
  EXPECT_GT(rms[0] / rms[1], 1.5);
}

}  // namespace
