#include "gst_test_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "gst/register.h"

namespace nft::testing {

void initGstreamer() {
  static const bool done = [] {
    gst_init(nullptr, nullptr);
    return gst_nft_plugin_register(nullptr) != FALSE;  // what loading the plugin registers
  }();
  ASSERT_TRUE(done) << "nfttrack and nftgloverlay could not be registered";
}

const Scene& scene() {
  static const Scene s = [] {
    Scene r;
    const cv::Mat graf = cv::imread("/usr/share/doc/opencv-doc/examples/data/graf1.png", cv::IMREAD_GRAYSCALE);
    if (graf.empty()) throw std::runtime_error("opencv-doc's graf1.png is missing (scripts/install-deps.sh run)");
    r.target = graf(cv::Rect(200, 150, 320, 256)).clone();
    r.targetPath = std::filesystem::temp_directory_path() / ("nft_gst_target_" + std::to_string(::getpid()) + ".png");
    cv::imwrite(r.targetPath.string(), r.target);
    r.quad = {{150, 100}, {470, 125}, {455, 385}, {140, 360}};
    const std::vector<cv::Point2f> corners = {{0, 0}, {320, 0}, {320, 256}, {0, 256}};
    const cv::Mat H = cv::getPerspectiveTransform(corners, r.quad);
    cv::Mat background(482, 642, CV_8UC1);
    cv::randu(background, 60, 190);
    cv::GaussianBlur(background, background, cv::Size(0, 0), 3.0);
    r.frame = background;
    cv::warpPerspective(r.target, r.frame, H, r.frame.size(), cv::INTER_LINEAR, cv::BORDER_TRANSPARENT);
    return r;
  }();
  return s;
}

std::string capsOf(const cv::Mat& frame, GstVideoFormat format) {
  return std::string("video/x-raw,format=") + gst_video_format_to_string(format) + ",width=" +
         std::to_string(frame.cols) + ",height=" + std::to_string(frame.rows) + ",framerate=30/1";
}

GstBuffer* bufferOf(const cv::Mat& frame, GstVideoFormat format) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, static_cast<guint>(frame.cols), static_cast<guint>(frame.rows));
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame v;
  if (!gst_video_frame_map(&v, &info, buffer, GST_MAP_WRITE)) throw std::runtime_error("cannot map a test buffer");
  const auto plane = [&](int i) { return static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&v, i)); };
  const auto stride = [&](int i) { return GST_VIDEO_FRAME_PLANE_STRIDE(&v, i); };
  for (int i = 0; i < static_cast<int>(GST_VIDEO_FRAME_N_PLANES(&v)); ++i) {
    const int rows = i == 0 ? frame.rows : frame.rows / 2;
    std::memset(plane(i), 128, static_cast<size_t>(stride(i)) * static_cast<size_t>(rows));
  }
  for (int y = 0; y < frame.rows; ++y) {
    const std::uint8_t* g = frame.ptr<std::uint8_t>(y);
    std::uint8_t* row = plane(0) + static_cast<std::ptrdiff_t>(y) * stride(0);
    for (int x = 0; x < frame.cols; ++x) {
      switch (format) {
        case GST_VIDEO_FORMAT_YUY2: row[2 * x] = g[x]; break;  // U and V stay 128
        case GST_VIDEO_FORMAT_RGBA:
        case GST_VIDEO_FORMAT_BGRx: row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = g[x]; row[4 * x + 3] = 255; break;
        case GST_VIDEO_FORMAT_BGR: row[3 * x] = row[3 * x + 1] = row[3 * x + 2] = g[x]; break;
        default: row[x] = g[x];  // GRAY8 and the luma of NV12, NV21, I420
      }
    }
  }
  gst_video_frame_unmap(&v);
  return buffer;
}

std::vector<std::string> busErrors(GstBus* bus) {
  std::vector<std::string> errors;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* error = nullptr;
    gst_message_parse_error(m, &error, nullptr);
    errors.push_back(std::string(g_quark_to_string(error->domain)) + "/" + std::to_string(error->code) + ": " +
                     error->message);
    g_error_free(error);
    gst_message_unref(m);
  }
  return errors;
}

}  // namespace nft::testing
