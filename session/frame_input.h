#pragma once
// Frames in the formats apps hand to nft::Session::process(): checks of an ImageView, the image
// the tracker runs on (the grey plane in place where the format has one), and the colour picture
// render() draws as the background.

#include <string>

#include <opencv2/core.hpp>

#include "nft/image_view.h"

namespace nft::session {

/// An ImageView of a cv::Mat: CV_8UC1 → Gray8, CV_8UC3 → Bgr8, CV_8UC4 → Bgra8, stride = step.
/// @throws nft::InputError naming `argument` for an empty Mat or another type.
ImageView viewOf(const cv::Mat& frame, const std::string& argument);

/// Checks a view: data not null, width and height > 0 (even for NV21/NV12/I420), stride 0 or
/// ≥ a row's bytes, chromaStride 0 or ≥ a chroma row's bytes, a known format.
/// @throws nft::InputError "<argument>: <field> = <value>: expected ..." naming the field.
void checkView(const ImageView& view, const std::string& argument);

/// The image the tracker runs on, for a checked view, always CV_8UC1: wrapping the pixels of
/// Gray8 and the Y plane of NV21 / NV12 / I420 (no copy; its step is the view's stride); a grey
/// conversion (cv::cvtColor's) into `scratch` for Bgr8, Rgba8, Bgra8 and Yuyv — once for both
/// lanes and the final refinement, which reads the grey frame's pixels (it sampled a BGR frame's
/// three channels at every sample before, and the tracker converted it again).
/// The result points into the view's memory or into `scratch`.
cv::Mat trackableImage(const ImageView& view, cv::Mat& scratch);

/// The view's picture as tightly packed RGB (CV_8UC3, R first), into `rgb` (reused when its size
/// fits): what the background texture of render() is uploaded from. Chroma is read here only.
void toRgb(const ImageView& view, cv::Mat& rgb);

}  // namespace nft::session
