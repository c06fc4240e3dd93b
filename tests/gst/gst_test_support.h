#pragma once
// Helpers of the GStreamer element tests: GStreamer initialised with nfttrack registered in the test
// process, a target image and a frame that shows it under a known homography (from opencv-doc's
// graf1.png, on every machine through scripts/install-deps.sh run), raw buffers of every format
// nfttrack takes, and the bus's error messages.

#include <gst/gst.h>
#include <gst/video/video.h>

#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace nft::testing {

/// gst_init once; nfttrack, nftgloverlay and GstNftMeta's API type registered (statically, by
/// what the plugin's entry point calls: gst/register.h).
void initGstreamer();

/// A scene: `target` (written to a temporary PNG, `targetPath`) warped into a `frame` of
/// `frameSize` by a homography that maps its corners onto `quad` (upper left, upper right, lower
/// right, lower left), on a textured background.
struct Scene {
  std::filesystem::path targetPath;
  cv::Mat target;  ///< CV_8UC1
  cv::Mat frame;   ///< CV_8UC1
  std::vector<cv::Point2f> quad;
};
/// The scene of the tests: a 320×256 crop of graf1.png in a 642×482 frame (sizes that make
/// GStreamer's rows padded: 642 bytes of GRAY8 in 644).
const Scene& scene();

/// A buffer of `format` and the frame's size holding the grey `frame`: its luma for the YUV formats
/// (chroma 128), grey R = G = B for the RGB ones; rows laid out as GstVideoInfo lays them out.
GstBuffer* bufferOf(const cv::Mat& frame, GstVideoFormat format);

/// The caps of such a buffer (framerate 30/1).
std::string capsOf(const cv::Mat& frame, GstVideoFormat format);

/// The text of every error message on `bus` so far ("<domain/code>: <message>"), popped.
std::vector<std::string> busErrors(GstBus* bus);

}  // namespace nft::testing
