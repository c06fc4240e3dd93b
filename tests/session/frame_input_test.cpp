// session/frame_input.h: what the tracker sees and what render() draws for each pixel format of
// nft::ImageView, against OpenCV's own conversions of the same pixels.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "nft/error.h"
#include "session/frame_input.h"

namespace {

using nft::ImageView;
using nft::PixelFormat;

/// A smooth colour test picture (chroma varies, so a swapped U/V shows).
cv::Mat testBgr(cv::Size size) {
  cv::Mat bgr(size, CV_8UC3);
  for (int y = 0; y < size.height; ++y)
    for (int x = 0; x < size.width; ++x)
      bgr.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>(x * 3), static_cast<uchar>(y * 4), static_cast<uchar>((x + y) * 2));
  return bgr;
}

ImageView viewOf(const cv::Mat& m, PixelFormat f) {
  ImageView v;
  v.data = m.data;
  v.width = f == PixelFormat::Yuyv ? m.cols : m.cols;
  v.height = m.rows;
  v.stride = static_cast<int>(m.step[0]);
  v.format = f;
  return v;
}

double maxDiff(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat d;
  cv::absdiff(a, b, d);
  double m = 0;
  cv::minMaxLoc(d.reshape(1), nullptr, &m);
  return m;
}

TEST(FrameInput, TheYuvFormatsTrackTheirLumaPlaneInPlace) {
  const cv::Mat bgr = testBgr({64, 48});
  cv::Mat i420, nv21Ref;
  cv::cvtColor(bgr, i420, cv::COLOR_BGR2YUV_I420);  // Y plane, then U, then V: 72 rows of 64
  cv::Mat scratch;
  ImageView v = viewOf(i420, PixelFormat::I420);
  v.height = 48;
  v.stride = 64;
  const cv::Mat y = nft::session::trackableImage(v, scratch);
  EXPECT_EQ(y.data, i420.data) << "no copy of the grey plane";
  EXPECT_EQ(maxDiff(y, i420.rowRange(0, 48)), 0.0);
  // The colour picture from the planes equals OpenCV's conversion of the same buffer.
  cv::Mat rgb, expected;
  nft::session::toRgb(v, rgb);
  cv::cvtColor(i420, expected, cv::COLOR_YUV2RGB_I420);
  EXPECT_EQ(maxDiff(rgb, expected), 0.0);

  // NV21 / NV12 from the I420 planes: interleave V,U (NV21) or U,V (NV12).
  for (const PixelFormat f : {PixelFormat::Nv21, PixelFormat::Nv12}) {
    cv::Mat buffer(72, 64, CV_8UC1);
    i420.rowRange(0, 48).copyTo(buffer.rowRange(0, 48));
    const uchar* u = i420.ptr(48);
    const uchar* vv = u + 32 * 24;
    uchar* uv = buffer.ptr(48);
    for (int k = 0; k < 32 * 24; ++k) {
      uv[2 * k] = f == PixelFormat::Nv21 ? vv[k] : u[k];
      uv[2 * k + 1] = f == PixelFormat::Nv21 ? u[k] : vv[k];
    }
    ImageView w = viewOf(buffer, f);
    w.height = 48;
    EXPECT_EQ(nft::session::trackableImage(w, scratch).data, buffer.data) << toString(f);
    nft::session::toRgb(w, rgb);
    EXPECT_EQ(maxDiff(rgb, expected), 0.0) << toString(f) << ": chroma order";
  }
}

TEST(FrameInput, PackedFormatsGiveOpenCvsGrey) {
  const cv::Mat bgr = testBgr({64, 48});
  cv::Mat gray, rgba, bgra, scratch, rgb, expectedRgb;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  cv::cvtColor(bgr, rgba, cv::COLOR_BGR2RGBA);
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  cv::cvtColor(bgr, expectedRgb, cv::COLOR_BGR2RGB);
  // BGR, RGBA and BGRA are converted here, once for the lanes and the final refinement.
  const cv::Mat asGrey = nft::session::trackableImage(viewOf(bgr, PixelFormat::Bgr8), scratch);
  EXPECT_EQ(asGrey.type(), CV_8UC1);
  EXPECT_EQ(maxDiff(asGrey, gray), 0.0);
  EXPECT_EQ(maxDiff(nft::session::trackableImage(viewOf(rgba, PixelFormat::Rgba8), scratch), gray), 0.0);
  EXPECT_EQ(maxDiff(nft::session::trackableImage(viewOf(bgra, PixelFormat::Bgra8), scratch), gray), 0.0);
  for (const auto& [m, f] : {std::pair{bgr, PixelFormat::Bgr8}, {rgba, PixelFormat::Rgba8}, {bgra, PixelFormat::Bgra8}}) {
    nft::session::toRgb(viewOf(m, f), rgb);
    EXPECT_EQ(maxDiff(rgb, expectedRgb), 0.0) << toString(f);
  }
  // YUYV: grey is the Y bytes.
  cv::Mat yuyv(48, 64, CV_8UC2);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) yuyv.at<cv::Vec2b>(y, x) = cv::Vec2b(gray.at<uchar>(y, x), static_cast<uchar>(100 + x % 2 * 50));
  EXPECT_EQ(maxDiff(nft::session::trackableImage(viewOf(yuyv, PixelFormat::Yuyv), scratch), gray), 0.0);
}

TEST(FrameInput, ChecksNameTheFieldAndWhatWasExpected) {
  std::vector<uchar> pixels(100 * 100 * 4);
  ImageView v;
  v.data = pixels.data();
  v.width = 100;
  v.height = 100;
  v.format = PixelFormat::Rgba8;
  EXPECT_NO_THROW(nft::session::checkView(v, "process"));
  auto message = [&](ImageView w) {
    try {
      nft::session::checkView(w, "process");
    } catch (const nft::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ImageView w = v;
  w.stride = 399;
  EXPECT_EQ(message(w), "process: stride 399 is smaller than a row of 100 rgba8 pixels (400 bytes): expected 0 (tightly "
                        "packed) or at least 400");
  w = v;
  w.height = 0;
  EXPECT_EQ(message(w), "process: size 100x0: expected a width and height > 0");
  w = v;
  w.format = PixelFormat::I420;
  w.chroma[0] = pixels.data();
  EXPECT_EQ(message(w), "process: i420 needs both chroma planes (U and V) or neither");
  w = v;
  w.format = PixelFormat::Nv12;
  w.chromaStride = 50;
  EXPECT_EQ(message(w), "process: chromaStride 50 is smaller than a chroma row of nv12 (100 bytes)");
  EXPECT_THROW(nft::session::viewOf(cv::Mat(4, 4, CV_32FC1), "process"), nft::InputError);
}

}  // namespace
