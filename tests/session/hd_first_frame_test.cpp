// The first frame of an HD clip is found (issue 45, Deliver 2): a sign-sized region (300 × 140 px,
// 4.6 % of the frame: issue 45's street sign, target.min_frame_fraction 0.21) cut from a real
// 1280 × 720 photograph is found by the public Session, default configuration, on that very frame
// — given as a target image, and as an instant target (addTargetFromFrame) searched again after
// resetTracking(). The regions: a fixed 4 × 3 grid over each of eight photographs of Debian's
// plasma-workspace-wallpapers (forest, fields, water, leaves: clutter everywhere), kept when
// textured enough to train (scripts/make-distractors.py's rule: mean local standard deviation
// >= 12, >= 200 FAST corners at threshold 30), 35 in all. Measured: 29 of 35 found (image
// targets) when the lanes searched the 640 × 360 working frame alone, 32 with the detection frame
// at full resolution (session/working_frame.h), 34 with the stricter ratio tests as well
// (tracker/detection_lane.h); the one left, OneStandsOut's lower-left grass, gives 6 inliers among
// 475 matches and none at the stricter ratios. The instant targets are found wherever the images are.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "nft/session.h"
#include "session/working_frame.h"
#include "support/synchronous_session.h"

namespace nft {
namespace {

const char* const kPhotos[] = {"Path",       "EveningGlow", "OneStandsOut", "BytheWater",
                               "ColdRipple", "FallenLeaf",  "summer_1am",   "Autumn"};

std::string photoPath(const std::string& name) {
  return "/usr/share/wallpapers/" + name + "/contents/images/1920x1080.jpg";
}

/// The photograph as a 1280 × 720 BGR camera frame with sensor noise (σ = 3, seeded).
cv::Mat hdFrame(const std::string& name) {
  const cv::Mat photo = cv::imread(photoPath(name));
  if (photo.empty()) return {};
  cv::Mat frame, noise(720, 1280, CV_16SC3), f16;
  cv::resize(photo, frame, cv::Size(1280, 720), 0, 0, cv::INTER_AREA);
  cv::RNG(7).fill(noise, cv::RNG::NORMAL, 0, 3);
  frame.convertTo(f16, CV_16SC3);
  f16 += noise;
  f16.convertTo(frame, CV_8UC3);
  return frame;
}

/// make-distractors.py's rule for a region worth training.
bool textured(const cv::Mat& bgr) {
  cv::Mat gray, f, mean, meanSq, sd;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  gray.convertTo(f, CV_32F);
  cv::blur(f, mean, cv::Size(9, 9));
  cv::blur(f.mul(f), meanSq, cv::Size(9, 9));
  cv::sqrt(cv::max(meanSq - mean.mul(mean), 0), sd);
  std::vector<cv::KeyPoint> corners;
  cv::FAST(gray, corners, 30);
  return cv::mean(sd)[0] >= 12 && corners.size() >= 200;
}

double alignmentError(const std::vector<cv::Point2f>& a, const std::vector<cv::Point2f>& b) {
  double sum = 0;
  for (size_t k = 0; k < 4; ++k) sum += std::pow(cv::norm(a[k] - b[k]), 2);
  return std::sqrt(sum / 4);
}

TEST(HdFirstFrame, TheDetectionFrameKeepsTheSmallestTarget192PxASide) {
  // d = max(1, min(k, floor(s · sqrt(W · H) / 192))) (session/working_frame.h).
  const session::WorkingFrame hd({1280, 720}, 0.2);  // 0.2 · 960 = 192: full resolution
  EXPECT_EQ(hd.factor(), 2);
  EXPECT_EQ(hd.detectionFactor(), 1);
  EXPECT_EQ(hd.detectionSize(), cv::Size(1280, 720));
  EXPECT_TRUE(hd.finerDetection());
  const session::WorkingFrame fullHd({1920, 1080}, 0.2);  // 288 / 192 = 1.5
  EXPECT_EQ(fullHd.factor(), 3);
  EXPECT_EQ(fullHd.detectionFactor(), 1);
  const session::WorkingFrame uhd({3840, 2160}, 0.2);  // 576 / 192 = 3
  EXPECT_EQ(uhd.factor(), 6);
  EXPECT_EQ(uhd.detectionFactor(), 3);
  EXPECT_EQ(uhd.detectionSize(), cv::Size(1280, 720));
  const session::WorkingFrame larger({1920, 1080}, 0.4);  // targets of 0.4: 576 / 192 = 3 = k
  EXPECT_EQ(larger.detectionFactor(), larger.factor());
  EXPECT_FALSE(larger.finerDetection());
  const session::WorkingFrame vga({640, 480}, 0.2);  // the lanes at full resolution already
  EXPECT_EQ(vga.detectionFactor(), 1);
  EXPECT_FALSE(vga.finerDetection());
  // The detection image: the frame itself at d = 1, cv::resize's INTER_AREA otherwise.
  cv::Mat frame(2160, 3840, CV_8UC1), scratch, expected;
  cv::randu(frame, 0, 255);
  EXPECT_EQ(hd.toDetection(frame, scratch).data, frame.data);
  cv::resize(frame, expected, cv::Size(1280, 720), 0, 0, cv::INTER_AREA);
  EXPECT_EQ(cv::norm(uhd.toDetection(frame, scratch), expected, cv::NORM_INF), 0.0);
}

TEST(HdFirstFrame, ASignSizedRegionIsFoundOnTheFrameItWasCutFrom) {
  const cv::Size cut(300, 140);
  int regions = 0, imageFound = 0, instantFound = 0;
  std::string misses;
  for (const char* name : kPhotos) {
    const cv::Mat frame = hdFrame(name);
    ASSERT_FALSE(frame.empty()) << photoPath(name)
                                << " is missing (install plasma-workspace-wallpapers: scripts/install-deps.sh)";
    for (int i = 0; i < 12; ++i) {
      const float x = static_cast<float>(60 + (i % 4) * (1280 - cut.width - 120) / 3);
      const float y = static_cast<float>(60 + (i / 4) * (720 - cut.height - 120) / 2);
      if (!textured(frame(cv::Rect(static_cast<int>(x), static_cast<int>(y), cut.width, cut.height)))) continue;
      ++regions;
      // The region's corners, pixel edges: what a user marks, and where the target is.
      const float w = 300.0f, h = 140.0f;
      const std::vector<cv::Point2f> quad = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}};
      const std::string label = std::string(name) + " (" + std::to_string(static_cast<int>(x)) + ", " +
                                std::to_string(static_cast<int>(y)) + ")";
      const auto found = [&](const TargetResult& t) {
        return t.found && t.corners.size() == 4 && alignmentError(t.corners, quad) <= 5.0;
      };
      {  // the region as a target image
        const cv::Point2f to[4] = {{0, 0}, {300, 0}, {300, 140}, {0, 140}};
        cv::Mat image;
        cv::warpPerspective(frame, image, cv::getPerspectiveTransform(quad.data(), to), cut, cv::INTER_LINEAR);
        Session session(testing::synchronous());
        session.addTarget(image, "sign");
        const TargetResult t = session.process(frame).targets.at(0);
        imageFound += found(t) ? 1 : 0;
        if (!found(t)) misses += "\n  image target " + label + ": " + t.rejection;
      }
      {  // the region as an instant target, searched for again on the same frame
        Session session(testing::synchronous());
        session.addTargetFromFrame(frame, quad, "sign");
        session.resetTracking();
        const TargetResult t = session.process(frame).targets.at(0);
        instantFound += found(t) ? 1 : 0;
        if (!found(t)) misses += "\n  instant target " + label + ": " + t.rejection;
      }
    }
  }
  std::cout << regions << " regions: found " << imageFound << " as images, " << instantFound << " as instant targets"
            << misses << "\n";
  EXPECT_EQ(regions, 35);
  EXPECT_GE(imageFound, regions - 1) << misses;
  EXPECT_EQ(instantFound, imageFound) << misses;
}

TEST(HdFirstFrame, TheWorkerSearchesTheDetectionFrameToo) {
  // One of the regions the 640 × 360 working frame does not find (issue 45's sign-sized region of
  // the forest's lower right), searched by the worker (tracking.async_detection on): a still
  // camera, the frame given again until a search comes back with it (60 s at most: a failure).
  const cv::Mat frame = hdFrame("Path");
  ASSERT_FALSE(frame.empty()) << photoPath("Path")
                              << " is missing (install plasma-workspace-wallpapers: scripts/install-deps.sh)";
  const std::vector<cv::Point2f> quad = {{920, 520}, {1220, 520}, {1220, 660}, {920, 660}};
  SessionOptions o;
  o.config.tracking.asyncDetection = config::AsyncDetection::On;
  Session session(o);
  session.addTargetFromFrame(frame, quad, "sign");
  session.resetTracking();
  const auto start = std::chrono::steady_clock::now();
  TargetResult t;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    t = session.process(frame).targets.at(0);
    if (t.found) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(t.found) << "not found by the worker in 60 s: " << t.rejection;
  EXPECT_LE(alignmentError(t.corners, quad), 2.0);
}

}  // namespace
}  // namespace nft
