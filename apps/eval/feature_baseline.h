#pragma once
// The baselines users would write from OpenCV's samples to find a planar target in every frame:
// ORB (1000 features, Hamming distance, ratio test 0.8) or SIFT (L2 distance, ratio test 0.75),
// brute-force k = 2 nearest neighbours from the target's descriptors into the frame's, and
// cv::findHomography with RANSAC (3 px) over the matches kept — on every frame, with no
// tracking. The expected behaviour is that of nft_tracker_benchmark's BM_SiftBaselineFullPass
// (tests/benchmarks/tracker_benchmark.cpp). Used by `nft_eval tracking` and by nft_bench.

#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>

namespace nft::eval {

enum class BaselineKind { Orb, Sift };

/// "orb" or "sift".
std::string toString(BaselineKind kind);

/// Parses a comma-separated list of baselines ("orb,sift"; "none" or "" for none).
/// @throws std::invalid_argument "unknown baseline 'x' (expected orb, sift or none)".
std::vector<BaselineKind> parseBaselineList(const std::string& list);

/// Settings of the baselines (the OpenCV samples' values).
struct BaselineOptions {
  int orbFeatures = 1000;    ///< cv::ORB::create(nfeatures), for the target and every frame
  float orbRatio = 0.8f;     ///< ratio test for ORB
  float siftRatio = 0.75f;   ///< ratio test for SIFT (Lowe's)
  double ransacPx = 3.0;     ///< cv::findHomography RANSAC reprojection threshold
};

/// One frame's outcome of a method that finds the target's corners.
struct FrameOutcome {
  bool found = false;
  /// The target image's corners (0,0), (w,0), (w,h), (0,h) in frame pixels; empty when not found.
  std::vector<cv::Point2f> corners;
  /// Time of the whole frame (grey conversion, features, matching, homography), milliseconds.
  double ms = 0;
  /// When found: the homography target-image pixels → frame pixels and its RANSAC inliers.
  cv::Matx33d homography = cv::Matx33d::eye();
  int inliers = 0;
};

/// One baseline bound to one target image. Not thread-safe.
class FeatureBaseline {
 public:
  /// Detects and describes the target once. @param target CV_8UC1 or CV_8UC3, non-empty.
  /// @throws std::invalid_argument for an empty target.
  FeatureBaseline(BaselineKind kind, const cv::Mat& target, const BaselineOptions& options = {});

  /// Finds the target in `frame` (CV_8UC1 or CV_8UC3): found when at least 4 matches pass the
  /// ratio test and RANSAC returns a homography.
  FrameOutcome find(const cv::Mat& frame);

  BaselineKind kind() const { return kind_; }
  std::string name() const { return toString(kind_); }
  int targetKeypoints() const { return static_cast<int>(targetKeypoints_.size()); }

 private:
  BaselineKind kind_;
  BaselineOptions options_;
  cv::Ptr<cv::Feature2D> features_;
  cv::BFMatcher matcher_;
  std::vector<cv::KeyPoint> targetKeypoints_;
  cv::Mat targetDescriptors_;
  std::vector<cv::Point2f> targetCorners_;
  cv::Mat gray_;
};

}  // namespace nft::eval
