#pragma once
// The tracking lane's update for motion-blurred frames (tracker/tracking_lane.h, step 6): an
// affine correction of the estimate fitted by weighted least squares, then the whole homography
// refined with the same weights, each match weighted by direction. A patch found in a frame
// blurred along a streak is placed precisely across the streak but only loosely along it
// (measured on the motion-blur preset of apps/replay/synthetic_presets.h from the exact
// homography: along 20–40 px streaks the matches scatter by 1.5–2.9 px rms, across them by
// 0.3–0.7 px); a homography fitted with equal weights turns that scatter into errors of its
// perspective terms, several pixels at the target's corners. Weighting each residual by the
// inverse of its expected variance (Gauss-Markov; the along-streak standard deviation taken as
// proportional to the streak) keeps them small. On that preset (300 frames), from the exact
// homography of each frame: 55 of 78 frames within 5 px with the equal-weight homography, 64
// with the weighted affine correction alone, 78 with the correction and the weighted
// homography (median 1.2 px). Source of the blur model: Klein and Murray, "Improving the Agility
// of Keyframe-Based SLAM", ECCV 2008.

#include <optional>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// One match for fitBlurredCorrection(): where the current estimate put the patch (`expected`),
/// where it was found (`found`), and the blur streak of its template (`streak`: the displacement
/// during the exposure, zero for none), all in full-resolution frame pixels.
struct BlurredMatch {
  cv::Point2f expected, found;
  cv::Point2f streak;
};

/// The along-streak standard deviation of a match relative to the across-streak one, per pixel
/// of streak (the weight along a streak of length L is 1 / (1 + (kAlongStreakSigmaPerPx·L)²)).
/// The tracker on the motion-blur preset (300 frames), success at 5 px: 0.05: 82 %, 0.1: 85 %,
/// 0.2: 80 %, 0.3: 56 % (before the half-resolution last stage, tracker/tracking_lane.h).
constexpr double kAlongStreakSigmaPerPx = 0.1;

/// The affine map A (2×3, frame pixels → frame pixels) minimising
/// Σ (n·(A·e − f))² + w(L)·(u·(A·e − f))² over the matches (e expected, f found, u the unit streak
/// direction, n its normal, L the streak length, w(L) = 1 / (1 + (kAlongStreakSigmaPerPx·L)²);
/// matches without a streak weigh 1 in both directions). The caller composes it with the
/// estimate that gave `expected` (H' = [A; 0 0 1]·H).
/// @return std::nullopt for fewer than 3 matches or a degenerate (collinear) set.
std::optional<cv::Matx23d> fitBlurredCorrection(const std::vector<BlurredMatch>& matches);

/// Refines the homography H (target pixels → frame pixels) on matches by Gauss-Newton with the
/// same direction weights: `target[i]` in the target image found at `found[i]` in the frame with
/// template streak `streak[i]` (frame pixels). `iterations` steps (>= 1) from H.
/// @return the refined H (H(2,2) = 1), or std::nullopt for fewer than 5 matches or a singular
///   system (then keep H).
std::optional<cv::Matx33d> refineBlurredHomography(const cv::Matx33d& H, const std::vector<cv::Point2f>& target,
                                                   const std::vector<cv::Point2f>& found,
                                                   const std::vector<cv::Point2f>& streak, int iterations = 5);

}  // namespace nft::tracker
