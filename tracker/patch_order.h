#pragma once
// The order the tracking lanes (tracker/tracking_lane.h for planes, curved_tracking_lane.h for
// labels on cylinders and cones) take a model's tracking patches in: its pyramid levels
// interleaved, and in each frame spread over the part of the target in view.

#include <vector>

#include <opencv2/core.hpp>

#include "detection/target_model.h"

namespace nft::tracker {

/// The patches in the order the lane takes them: the model's levels interleaved (a level's
/// strongest first), so that a budget of maxPatches draws from every level.
std::vector<cv::Point2f> interleavedPatches(const std::vector<detection::TrackingPatch>& patches);

/// Indices of the visible patches, in the order a stage takes them: spread over the part of the
/// target in view. `frame[i]` is patch i's predicted frame position (full resolution; the patches
/// in the lane's order, interleavedPatches()) and `visible[i]` whether its template window lies in
/// the level's image. The bounding box of the visible ones is cut into a grid of about `budget`
/// cells and the cells are visited round-robin, each giving its next patch in the lane's order
/// (strongest first): the first `budget` taken cover the visible area as evenly as the patches
/// allow, instead of the strongest ones, which cluster where the print has most contrast (a
/// title, a band of text) and leave the rest of a large target, and a target partly out of view,
/// unconstrained (issue 45, Deliver 4).
std::vector<int> spreadOrder(const std::vector<cv::Point2d>& frame, const std::vector<unsigned char>& visible,
                             int budget);

}  // namespace nft::tracker
