#pragma once
// The two primitives of the NCC patch tracker (Wagner, Reitmayr, Mulloni, Drummond,
// Schmalstieg, "Real-Time Detection and Tracking for Augmented Reality on Mobile Phones", IEEE
// TVCG 16(3), 2010, section 5.1): a patch of the target image warped into the frame by the
// predicted homography, and the normalised cross-correlation search for it around its predicted
// position.
//
// Pyramid conventions (cv::pyrDown's): pixel x of level L of a pyramid is pixel 2^L·x of level 0,
// for the frame's pyramid and for the target's.

#include <vector>

#include <opencv2/core.hpp>

namespace nft::tracker {

/// A patch template: what the frame should show on a size × size grid of level-L frame pixels,
/// zero mean and unit L2 norm so that a dot product with a window is its NCC numerator.
struct PatchTemplate {
  int size = 0;               ///< side, level pixels
  std::vector<float> values;  ///< size² values, row-major, Σ = 0, Σ² = 1 (when valid)
  bool valid = false;         ///< false: the footprint leaves the target or the patch is flat
};

/// Samples the template of a patch whose grid is centred on the level-`frameLevel` frame pixel
/// `centre`: grid pixel (i, j), i, j in [0, size), is the level pixel
/// (centre.x − size/2 + i, centre.y − size/2 + j), i.e. the full-resolution frame point
/// 2^frameLevel times that; `frameToTarget` (H⁻¹: full-resolution frame pixels → target
/// level-0 pixels) maps it into the target, which is sampled bilinearly from the level of
/// `targetPyramid` (CV_8UC1 images, level 0 first, made by cv::pyrDown) whose pixel best matches
/// a frame pixel's footprint there (anti-aliasing when the target appears small).
/// The template is invalid when a sample falls outside the target image or when its standard
/// deviation is below `minStdDev` grey levels (nothing to correlate).
/// @throws std::invalid_argument for an empty pyramid or size < 2.
PatchTemplate warpPatch(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                        cv::Point centre, int frameLevel, int size, float minStdDev = 2.0f);

/// The target pyramid warpPatch() samples: `image` (CV_8UC1) and its cv::pyrDown levels down to
/// ~16 px (a frame pixel covering more target pixels than the coarsest level's samples that level,
/// slightly aliased; the target is then barely visible). The images share `image`'s pixels at level 0.
std::vector<cv::Mat> targetPyramidOf(const cv::Mat& image);

/// Largest number of samples warpPatchBlurred() averages along a streak.
constexpr int kMaxBlurTaps = 9;
/// Shortest streak warpPatchBlurred() blurs along, level pixels (a shorter one gives warpPatch()'s
/// template): on cmu_book, whose camera pans a few pixels per frame, blurring from 0.5 px on cost
/// 8 % of the tracking lane's time and changed no result.
constexpr double kMinBlurStreak = 1.5;

/// warpPatch() for a frame taken while the target moved: each template pixel is the mean of
/// the target along the straight streak `streak` (full-resolution frame pixels, the displacement
/// of that image point during the exposure), centred on the pixel — what a camera integrates
/// over its exposure under linear motion (the blur model of Klein and Murray, "Improving the
/// Agility of Keyframe-Based SLAM", ECCV 2008, section 4, used there to predict blurred
/// appearance). The streak is sampled at 2 to kMaxBlurTaps points, about a level pixel apart,
/// from the target level whose pixel matches that spacing (so the sparse taps still average the
/// whole streak); a streak under kMinBlurStreak level pixels gives warpPatch()'s template exactly.
/// Same validity rules and errors as warpPatch() (every tap must fall inside the target).
PatchTemplate warpPatchBlurred(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget,
                               cv::Point centre, int frameLevel, int size, cv::Point2d streak,
                               float minStdDev = 2.0f);

/// warpPatchBlurred() into `patch`, reusing its buffer (the tracking lane warps hundreds of
/// templates a frame: no allocation once warm). Same results, rules and errors.
void warpPatchInto(const std::vector<cv::Mat>& targetPyramid, const cv::Matx33d& frameToTarget, cv::Point centre,
                   int frameLevel, int size, cv::Point2d streak, PatchTemplate& patch, float minStdDev = 2.0f);

/// Largest search radius searchNcc() takes, level pixels.
constexpr int kMaxSearchRadius = 32;

/// Result of an NCC search.
struct NccPeak {
  cv::Point2f shift;   ///< sub-pixel displacement of the best match from the template's grid, level pixels
  float score = -1.f;  ///< NCC at the best integer shift, in [−1, 1]
  bool found = false;  ///< false when the search window leaves the image or nothing correlates
};

/// Exhaustive NCC search for `patch` (valid, as warpPatch makes it) in `image` (CV_8UC1, one
/// pyramid level of the frame) over the integer shifts s in [−radius, radius]²: window pixel
/// (i, j) is image(centre + s + (i − size/2, j − size/2)). The best score's shift is refined to
/// sub-pixel by a 1-D parabola through its neighbours in x and in y (clamped to ±0.5; none at the
/// search border). A window with zero variance scores 0.
/// @param clipToImage false: found = false unless the whole search area (centre ± (size/2 +
///   radius)) is inside the image. true: only the shifts whose window lies inside the image are
///   searched (a patch near the frame's border, a target partly out of view); found = false when
///   none does. A peak on the clipped border gets no sub-pixel refinement across it.
/// Cost: for patches up to 16 × 16 the window sums come from integral images of the search area
/// and the dot products of 4 neighbouring shifts run side by side in 16-bit integers (the
/// template quantised to 15 bits; OpenCV's universal intrinsics), the scores within about 1e-5
/// of the window-by-window float sum (ncc_patch_test bounds them); larger patches are scored
/// window by window.
/// @throws std::invalid_argument for an image that is not CV_8UC1, an invalid patch or a radius outside
///   [0, kMaxSearchRadius].
NccPeak searchNcc(const cv::Mat& image, const PatchTemplate& patch, cv::Point centre, int radius,
                  bool clipToImage = false);

}  // namespace nft::tracker
