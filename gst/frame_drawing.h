#pragma once
// nfttrack's `draw`: the found targets' outline, axes and box drawn into the passing frame, in
// system memory, with OpenCV's drawing functions on views of the frame's planes (no copy).

#include <gst/video/video.h>

#include <vector>

#include "nft/types.h"

namespace nft::gst {

/// Draws, for each found target of `result`, its outline (TargetResult::outline: a flat target's
/// quad, a curved label's visible edges and silhouette), its axes (x red, y green, z blue, half
/// the target's width long, z towards the camera) and, for a flat target, a box on it (the target's rectangle lifted by half its shorter side towards the
/// camera), projected with `camera` (K and distortion) and the target's pose. Colour formats get
/// those colours; the YUV formats and GRAY8 are drawn on the luma plane only (white outline and
/// axes, black box), YUY2 in grey.
/// Lines are 2 px wide at 640×480 and scale with the frame's height.
/// @param frame   a frame mapped for writing, of a format video_view.h knows.
/// @param targets the Session's targets (their width in the pose's unit and aspect ratio), by id.
void drawAugmentations(GstVideoFrame& frame, const FrameResult& result, const Calibration& camera,
                       const std::vector<TargetInfo>& targets);

}  // namespace nft::gst
