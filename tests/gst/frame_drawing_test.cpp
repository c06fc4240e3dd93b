// nfttrack's `draw` (gst/frame_drawing.h) on a hand-made result: a flat target gets its quad and
// the box lifted off it; a curved label gets its outline polylines (TargetResult::outline), not
// its corners' quad, and no box, whose flat rectangle would not stand on the bent label.

#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

#include "gst/frame_drawing.h"
#include "gst_test_support.h"

namespace nft::testing {
namespace {

constexpr int kWidth = 640, kHeight = 480;

/// A black RGBA frame with `result` drawn into it, as an 8UC4 image (R, G, B, A).
cv::Mat drawn(const FrameResult& result, const TargetInfo& info) {
  initGstreamer();
  GstVideoInfo vinfo;
  gst_video_info_set_format(&vinfo, GST_VIDEO_FORMAT_RGBA, kWidth, kHeight);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&vinfo), nullptr);
  gst_buffer_memset(buffer, 0, 0, GST_VIDEO_INFO_SIZE(&vinfo));
  GstVideoFrame frame;
  EXPECT_TRUE(gst_video_frame_map(&frame, &vinfo, buffer, GST_MAP_READWRITE));
  Calibration camera;
  camera.K = cv::Matx33d(500, 0, 320, 0, 500, 240, 0, 0, 1);
  camera.imageSize = {kWidth, kHeight};
  gst::drawAugmentations(frame, result, camera, {info});
  const cv::Mat view(kHeight, kWidth, CV_8UC4, GST_VIDEO_FRAME_PLANE_DATA(&frame, 0),
                     static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0)));
  cv::Mat copy = view.clone();
  gst_video_frame_unmap(&frame);
  gst_buffer_unref(buffer);
  return copy;
}

/// A found 200×200 target (pose in target pixels: no width given) whose origin the pose puts at
/// frame pixel (220, 140), facing the camera 500 px away; corners as that pose projects them.
void foundTarget(FrameResult& result, TargetInfo& info) {
  info.id = 7;
  info.imageSize = {200, 200};
  TargetResult t;
  t.id = 7;
  t.found = true;
  t.pose.t = cv::Vec3d(-100, -100, 500);
  t.corners = {{220, 140}, {420, 140}, {420, 340}, {220, 340}};
  t.outline = {{t.corners[0], t.corners[1], t.corners[2], t.corners[3], t.corners[0]}};  // as the Session sets it
  result.targets = {t};
}

bool isColour(const cv::Mat& image, int x, int y, cv::Vec4b rgba) { return image.at<cv::Vec4b>(y, x) == rgba; }

/// Pixels exactly of the box's colour (yellow; an anti-aliased blend of the other colours
/// never has both red and green at 255).
int yellowPixels(const cv::Mat& image) {
  int n = 0;
  for (int y = 0; y < image.rows; ++y)
    for (int x = 0; x < image.cols; ++x) n += isColour(image, x, y, {255, 255, 0, 255});
  return n;
}

const cv::Vec4b kGreen{0, 255, 0, 255};

TEST(FrameDrawing, AFlatTargetGetsItsQuadAndTheBox) {
  FrameResult result;
  TargetInfo info;
  foundTarget(result, info);
  const cv::Mat image = drawn(result, info);
  EXPECT_TRUE(isColour(image, 370, 140, kGreen)) << "the quad's top edge, right of the x axis";
  EXPECT_TRUE(isColour(image, 420, 240, kGreen)) << "the middle of the quad's right edge";
  EXPECT_GT(yellowPixels(image), 200) << "the box";
}

TEST(FrameDrawing, ACurvedLabelGetsItsOutlinePolylinesAndNoBox) {
  FrameResult result;
  TargetInfo info;
  foundTarget(result, info);
  info.geometry = TargetGeometry::cylinder(0.033);
  // A label bent about a vertical axis: top and bottom edges bow down, two limb lines.
  result.targets[0].outline = {{{220, 140}, {320, 170}, {420, 140}},
                               {{220, 340}, {320, 370}, {420, 340}},
                               {{220, 140}, {220, 340}},
                               {{420, 140}, {420, 340}}};
  const cv::Mat image = drawn(result, info);
  EXPECT_TRUE(isColour(image, 320, 170, kGreen)) << "the bowed top edge's middle";
  EXPECT_TRUE(isColour(image, 320, 370, kGreen)) << "the bowed bottom edge's middle";
  EXPECT_TRUE(isColour(image, 420, 240, kGreen)) << "the right limb line";
  EXPECT_EQ(image.at<cv::Vec4b>(140, 370), cv::Vec4b(0, 0, 0, 0)) << "the corners' straight top edge is not drawn";
  EXPECT_EQ(yellowPixels(image), 0) << "no box on a curved label";
  // The axes are drawn from the pose's origin (x red towards +x).
  EXPECT_TRUE(isColour(image, 270, 140, {255, 0, 0, 255}));
}

}  // namespace
}  // namespace nft::testing
