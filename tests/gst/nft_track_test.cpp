// nfttrack under GstHarness (gstreamer-check): the poses of every format it takes, its GstNftMeta
// and its bus message, drawing into the frame, and the errors of bad properties and caps.

#include <gst/check/gstharness.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gst_test_support.h"
#include "gst/nft_meta.h"
#include "gst/result_message.h"

namespace nft::testing {
namespace {

/// One frame through a fresh nfttrack (target = the scene's target) under a harness whose element
/// posts on `bus`; the output buffer (owned by the caller) or nullptr.
struct TrackRun {
  GstBuffer* out = nullptr;
  std::vector<GstStructure*> messages;  // the nft-result structures, owned
  ~TrackRun() {
    if (out != nullptr) gst_buffer_unref(out);
    for (GstStructure* s : messages) gst_structure_free(s);
  }
};

/// A fresh nfttrack with `target` under a harness, posting on a bus of its own.
struct TrackHarness {
  GstElement* element = nullptr;
  GstBus* bus = nullptr;
  GstHarness* h = nullptr;
  /// `live`: what the harness answers to the element's latency query (a camera's source is
  /// live, a file's is not); GstHarness's own default is live.
  explicit TrackHarness(const std::string& target, bool live = false) {
    initGstreamer();
    element = gst_element_factory_make("nfttrack", nullptr);
    g_object_set(element, "target", target.c_str(), nullptr);
    bus = gst_bus_new();
    gst_element_set_bus(element, bus);
    h = gst_harness_new_with_element(element, "sink", "src");
    gst_harness_set_live(h, live);
  }
  ~TrackHarness() {
    gst_harness_teardown(h);
    gst_object_unref(element);
    gst_object_unref(bus);
  }
  TrackHarness(const TrackHarness&) = delete;
  TrackHarness& operator=(const TrackHarness&) = delete;
};

void runFrame(TrackRun& run, const cv::Mat& frame, GstVideoFormat format, bool draw = false) {
  TrackHarness t(scene().targetPath);
  g_object_set(t.element, "draw", draw, nullptr);
  GstHarness* h = t.h;
  GstBus* bus = t.bus;
  gst_harness_set_src_caps_str(h, capsOf(frame, format).c_str());
  ASSERT_EQ(gst_harness_push(h, bufferOf(frame, format)), GST_FLOW_OK) << gst_video_format_to_string(format);
  run.out = gst_harness_pull(h);
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    if (gst_structure_has_name(s, "nft-result")) run.messages.push_back(gst_structure_copy(s));
    gst_message_unref(m);
  }
  EXPECT_TRUE(busErrors(bus).empty());
}

/// The meta's first target's corners as points.
std::vector<cv::Point2f> cornersOf(const GstNftMeta& meta) {
  std::vector<cv::Point2f> c;
  for (int i = 0; i < 4; ++i) c.emplace_back(meta.targets[0].corners[2 * i], meta.targets[0].corners[2 * i + 1]);
  return c;
}

TEST(NftTrack, FindsTheTargetAndPutsItsPoseInTheMetaAndTheMessage) {
  TrackRun run;
  runFrame(run, scene().frame, GST_VIDEO_FORMAT_GRAY8);
  ASSERT_NE(run.out, nullptr);
  const GstNftMeta* meta = gst_buffer_get_nft_meta(run.out);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->frame, 0u);
  ASSERT_EQ(meta->n_targets, 1u);
  const GstNftTargetMeta& t = meta->targets[0];
  ASSERT_TRUE(t.found);
  EXPECT_STREQ(t.state, "detecting");
  EXPECT_STREQ(t.name, scene().targetPath.filename().c_str());
  EXPECT_GT(t.inliers, 20);
  const std::vector<cv::Point2f> corners = cornersOf(*meta);
  for (int i = 0; i < 4; ++i) EXPECT_LT(cv::norm(corners[i] - scene().quad[i]), 2.0) << "corner " << i;
  // R is a rotation, and the target lies in front of the camera.
  cv::Matx33d R;
  for (int k = 0; k < 9; ++k) R(k / 3, k % 3) = t.R[k];
  EXPECT_LT(cv::norm(R * R.t(), cv::Matx33d::eye()), 1e-6);
  EXPECT_GT(t.t[2], 0.0);

  ASSERT_EQ(run.messages.size(), 1u);
  const GstStructure* s = run.messages[0];
  guint64 frame = 99;
  gint found = -1, targets = -1;
  ASSERT_TRUE(gst_structure_get_uint64(s, "frame", &frame));
  ASSERT_TRUE(gst_structure_get_int(s, "found", &found));
  ASSERT_TRUE(gst_structure_get_int(s, "targets", &targets));
  EXPECT_EQ(frame, 0u);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(targets, 1);
  EXPECT_STREQ(gst_structure_get_string(s, "target0-state"), "detecting");
  double processMs = NAN, elementMs = NAN;
  ASSERT_TRUE(gst_structure_get_double(s, "process-ms", &processMs) && gst_structure_get_double(s, "element-ms", &elementMs));
  EXPECT_GT(processMs, 0.0);
  EXPECT_GE(elementMs, processMs) << "the element's time holds the Session's";
  static const char* const kCorner[8] = {"ulx", "uly", "urx", "ury", "lrx", "lry", "llx", "lly"};
  for (int c = 0; c < 8; ++c) {
    double v = NAN;
    ASSERT_TRUE(gst_structure_get_double(s, (std::string("target0-") + kCorner[c]).c_str(), &v)) << kCorner[c];
    EXPECT_DOUBLE_EQ(v, static_cast<double>(t.corners[c])) << kCorner[c];
  }
  double tz = NAN;
  ASSERT_TRUE(gst_structure_get_double(s, "target0-tz", &tz));
  EXPECT_DOUBLE_EQ(tz, t.t[2]);
  gboolean inFlight = TRUE;
  ASSERT_TRUE(gst_structure_get_boolean(s, "search-in-flight", &inFlight));
  EXPECT_FALSE(inFlight) << "from a source that is not live the search runs in the streaming thread";
  // The meta goes with copies of the buffer.
  GstBuffer* copy = gst_buffer_copy(run.out);
  const GstNftMeta* copied = gst_buffer_get_nft_meta(copy);
  ASSERT_NE(copied, nullptr);
  ASSERT_EQ(copied->n_targets, 1u);
  EXPECT_STREQ(copied->targets[0].name, t.name);
  EXPECT_NE(copied->targets[0].name, t.name);  // its own string
  EXPECT_EQ(copied->targets[0].corners[4], t.corners[4]);
  gst_buffer_unref(copy);
}

TEST(NftTrack, FromALiveSourceTheSearchRunsOnTheWorkerAndTheBuffersAreNotHeldBackForIt) {
  // tracking.async_detection auto, as the defaults have it: from a live source (a camera) the
  // Session's worker searches while buffers flow (with at least 2 cores; with one, auto is off
  // and the first buffer is searched in the streaming thread, as from a file).
  const bool worker = std::thread::hardware_concurrency() >= 2;
  TrackHarness t(scene().targetPath, /*live=*/true);
  gst_harness_set_src_caps_str(t.h, capsOf(scene().frame, GST_VIDEO_FORMAT_GRAY8).c_str());
  int firstFound = -1;
  bool firstInFlight = false;
  for (int i = 0; i < 200 && firstFound < 0; ++i) {
    ASSERT_EQ(gst_harness_push(t.h, bufferOf(scene().frame, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK) << "buffer " << i;
    gst_buffer_unref(gst_harness_pull(t.h));
    while (GstMessage* m = gst_bus_pop_filtered(t.bus, GST_MESSAGE_ELEMENT)) {
      const GstStructure* s = gst_message_get_structure(m);
      gint found = 0;
      gboolean inFlight = FALSE;
      if (gst_structure_has_name(s, "nft-result") && gst_structure_get_int(s, "found", &found) &&
          gst_structure_get_boolean(s, "search-in-flight", &inFlight)) {
        if (i == 0) firstInFlight = inFlight;
        if (found == 1 && firstFound < 0) firstFound = i;
      }
      gst_message_unref(m);
    }
    if (firstFound < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(busErrors(t.bus).empty());
  if (worker) {
    EXPECT_TRUE(firstInFlight) << "the first buffer's search runs on the worker";
    EXPECT_GT(firstFound, 0) << "the first buffer passes before its search ends";
  } else {
    EXPECT_FALSE(firstInFlight);
    EXPECT_EQ(firstFound, 0);
  }
  EXPECT_GE(firstFound, 0) << "the worker's detection reaches a later buffer";
}

// The luma plane (NV12, NV21, I420, YUY2) and grey RGB (R = G = B) hold the same grey frame: every
// format must give GRAY8's corners, through GStreamer's padded rows and chroma planes.
TEST(NftTrack, EveryFormatGivesTheCornersOfGray8) {
  TrackRun gray;
  runFrame(gray, scene().frame, GST_VIDEO_FORMAT_GRAY8);
  ASSERT_NE(gray.out, nullptr);
  const GstNftMeta* reference = gst_buffer_get_nft_meta(gray.out);
  ASSERT_TRUE(reference != nullptr && reference->n_targets == 1 && reference->targets[0].found);
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_I420,
                                GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
                                GST_VIDEO_FORMAT_BGR}) {
    TrackRun run;
    runFrame(run, scene().frame, format);
    ASSERT_NE(run.out, nullptr) << gst_video_format_to_string(format);
    const GstNftMeta* meta = gst_buffer_get_nft_meta(run.out);
    ASSERT_TRUE(meta != nullptr && meta->n_targets == 1) << gst_video_format_to_string(format);
    ASSERT_TRUE(meta->targets[0].found) << gst_video_format_to_string(format);
    for (int c = 0; c < 8; ++c)
      EXPECT_NEAR(meta->targets[0].corners[c], reference->targets[0].corners[c], 0.01)
          << gst_video_format_to_string(format) << " coordinate " << c;
  }
}

TEST(NftTrack, PassesTheFrameUnchangedWithoutDrawAndDrawsTheOutlineWithIt) {
  const GstVideoFormat format = GST_VIDEO_FORMAT_RGBA;
  TrackRun plain, drawn;
  runFrame(plain, scene().frame, format, false);
  runFrame(drawn, scene().frame, format, true);
  ASSERT_TRUE(plain.out != nullptr && drawn.out != nullptr);
  GstBuffer* input = bufferOf(scene().frame, format);
  GstMapInfo in, a, b;
  ASSERT_TRUE(gst_buffer_map(input, &in, GST_MAP_READ));
  ASSERT_TRUE(gst_buffer_map(plain.out, &a, GST_MAP_READ));
  ASSERT_TRUE(gst_buffer_map(drawn.out, &b, GST_MAP_READ));
  ASSERT_EQ(a.size, in.size);
  EXPECT_EQ(std::memcmp(a.data, in.data, in.size), 0) << "draw=false changed the frame";
  // The middle of the top edge of the found quad is green (the outline) in the drawn frame.
  const GstNftMeta* meta = gst_buffer_get_nft_meta(drawn.out);
  ASSERT_TRUE(meta != nullptr && meta->targets[0].found);
  const float* c = meta->targets[0].corners;
  const int x = static_cast<int>(std::lround((c[0] + c[2]) / 2)), y = static_cast<int>(std::lround((c[1] + c[3]) / 2));
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, static_cast<guint>(scene().frame.cols), static_cast<guint>(scene().frame.rows));
  const std::uint8_t* px = b.data + static_cast<size_t>(y) * GST_VIDEO_INFO_PLANE_STRIDE(&info, 0) + 4u * static_cast<size_t>(x);
  EXPECT_EQ(px[0], 0);    // R
  EXPECT_EQ(px[1], 255);  // G
  EXPECT_EQ(px[2], 0);    // B
  const std::uint8_t* before = in.data + (px - b.data);
  EXPECT_NE(before[1], 255) << "the input was already green there: the check proves nothing";
  gst_buffer_unmap(input, &in);
  gst_buffer_unmap(plain.out, &a);
  gst_buffer_unmap(drawn.out, &b);
  gst_buffer_unref(input);
}

// --- Errors: posted on the bus naming the property and its value; the element refuses to start. ---

/// The errors of taking a fresh nfttrack with `properties` (name, value pairs) to PAUSED, and
/// whether that state change failed.
std::vector<std::string> startErrors(const std::vector<std::pair<const char*, std::string>>& properties, bool& failed) {
  initGstreamer();
  GstElement* element = gst_element_factory_make("nfttrack", nullptr);
  for (const auto& [name, value] : properties) gst_util_set_object_arg(G_OBJECT(element), name, value.c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  failed = gst_element_set_state(element, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE;
  std::vector<std::string> errors = busErrors(bus);
  gst_element_set_state(element, GST_STATE_NULL);
  gst_object_unref(element);
  gst_object_unref(bus);
  return errors;
}

TEST(NftTrackErrors, AMissingTargetFileNamesThePropertyAndTheFile) {
  bool failed = false;
  const auto errors = startErrors({{"target", "/no/such/cover.jpg"}}, failed);
  EXPECT_TRUE(failed);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("property target = '/no/such/cover.jpg': the file does not exist"), std::string::npos)
      << errors[0];
  EXPECT_EQ(errors[0].rfind("gst-resource-error-quark/" + std::to_string(GST_RESOURCE_ERROR_NOT_FOUND), 0), 0u)
      << errors[0];
}

TEST(NftTrackErrors, NoTargetAtAllNamesBothProperties) {
  bool failed = false;
  const auto errors = startErrors({}, failed);
  EXPECT_TRUE(failed);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("set target"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("targets"), std::string::npos) << errors[0];
}

TEST(NftTrackErrors, ABadConfigKeyNamesTheConfigPropertyAndTheKey) {
  const std::string path = (std::filesystem::temp_directory_path() / "nft_gst_bad_key.yaml").string();
  std::ofstream(path) << "tracking:\n  no_such_key: 3\n";
  bool failed = false;
  const auto errors = startErrors({{"target", scene().targetPath.string()}, {"config", path}}, failed);
  EXPECT_TRUE(failed);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("property config = '" + path + "'"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("no_such_key"), std::string::npos) << errors[0];
  std::filesystem::remove(path);
}

TEST(NftTrackErrors, AMissingCalibrationFileNamesTheProperty) {
  bool failed = false;
  const auto errors =
      startErrors({{"target", scene().targetPath.string()}, {"calibration", "/no/such/camera.yaml"}}, failed);
  EXPECT_TRUE(failed);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("property calibration = '/no/such/camera.yaml'"), std::string::npos) << errors[0];
}

TEST(NftTrackErrors, ATargetThatIsNoImageFailsTheFirstBufferNamingTheProperty) {
  const std::string path = (std::filesystem::temp_directory_path() / "nft_gst_not_an_image.jpg").string();
  std::ofstream(path) << "not a JPEG";
  TrackHarness t(path);
  GstHarness* h = t.h;
  GstBus* bus = t.bus;
  gst_harness_set_src_caps_str(h, capsOf(scene().frame, GST_VIDEO_FORMAT_GRAY8).c_str());
  EXPECT_EQ(gst_harness_push(h, bufferOf(scene().frame, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_ERROR);
  const auto errors = busErrors(bus);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("property target = '" + path + "'"), std::string::npos) << errors[0];
  std::filesystem::remove(path);
}

TEST(NftTrackErrors, OddSizedI420CapsAreRefusedNamingTheCaps) {
  TrackHarness t(scene().targetPath);
  GstHarness* h = t.h;
  GstBus* bus = t.bus;
  gst_harness_set_src_caps_str(h, "video/x-raw,format=I420,width=641,height=481,framerate=30/1");
  const auto errors = busErrors(bus);
  ASSERT_EQ(errors.size(), 1u) << "one error, however often the base class retries the caps";
  EXPECT_NE(errors[0].find("format=(string)I420"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("even width and height, got 641x481"), std::string::npos) << errors[0];
}

TEST(NftTrackErrors, CapsOfAnotherFrameSizeAfterTheFirstFramesAreRefused) {
  TrackHarness t(scene().targetPath);
  GstHarness* h = t.h;
  GstBus* bus = t.bus;
  gst_harness_set_src_caps_str(h, capsOf(scene().frame, GST_VIDEO_FORMAT_GRAY8).c_str());
  ASSERT_EQ(gst_harness_push(h, bufferOf(scene().frame, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  EXPECT_TRUE(busErrors(bus).empty());
  gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1");
  const auto errors = busErrors(bus);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("the frame size changed from 642x482 to 640x480"), std::string::npos) << errors[0];
}

// --- The message's structure, from a FrameResult made by hand. ---

TEST(NftResultMessage, CarriesFrameFoundAndEachTargetsFields) {
  FrameResult r;
  r.frame = 41;
  TargetResult a;
  a.id = 1;
  a.name = "cover";
  a.state = TrackingState::Tracking;
  a.found = true;
  a.corners = {{1.5f, 2.5f}, {10, 2}, {10, 12}, {1, 12}};
  a.pose.t = {0.1, -0.2, 0.5};
  a.pose.rvec = {0.01, 0.02, 0.03};
  a.inliers = 57;
  TargetResult b;
  b.id = 2;
  b.name = "poster";
  b.state = TrackingState::Lost;
  r.targets = {a, b};
  r.timings.total = 1.25;
  r.searchInFlight = true;
  GstStructure* s = nft::gst::resultStructure(r, 5 * GST_SECOND, 1.5);
  gboolean inFlight = FALSE;
  ASSERT_TRUE(gst_structure_get_boolean(s, "search-in-flight", &inFlight));
  EXPECT_TRUE(inFlight);
  EXPECT_STREQ(gst_structure_get_name(s), "nft-result");
  guint64 frame = 0, timestamp = 0;
  gint found = 0, targets = 0, inliers = 0;
  ASSERT_TRUE(gst_structure_get_uint64(s, "frame", &frame) && gst_structure_get_uint64(s, "timestamp", &timestamp));
  ASSERT_TRUE(gst_structure_get_int(s, "found", &found) && gst_structure_get_int(s, "targets", &targets));
  EXPECT_EQ(frame, 41u);
  EXPECT_EQ(timestamp, 5 * GST_SECOND);
  double processMs = 0, elementMs = 0;
  ASSERT_TRUE(gst_structure_get_double(s, "process-ms", &processMs) && gst_structure_get_double(s, "element-ms", &elementMs));
  EXPECT_DOUBLE_EQ(processMs, 1.25);
  EXPECT_DOUBLE_EQ(elementMs, 1.5);
  EXPECT_EQ(found, 1);
  EXPECT_EQ(targets, 2);
  EXPECT_STREQ(gst_structure_get_string(s, "target0-name"), "cover");
  EXPECT_STREQ(gst_structure_get_string(s, "target0-state"), "tracking");
  ASSERT_TRUE(gst_structure_get_int(s, "target0-inliers", &inliers));
  EXPECT_EQ(inliers, 57);
  double ulx = 0, tz = 0, r22 = 0;
  ASSERT_TRUE(gst_structure_get_double(s, "target0-ulx", &ulx) && gst_structure_get_double(s, "target0-tz", &tz) &&
              gst_structure_get_double(s, "target0-r22", &r22));
  EXPECT_DOUBLE_EQ(ulx, 1.5);
  EXPECT_DOUBLE_EQ(tz, 0.5);
  EXPECT_DOUBLE_EQ(r22, 1.0);  // R was left as the identity
  gboolean found1 = TRUE;
  ASSERT_TRUE(gst_structure_get_boolean(s, "target1-found", &found1));
  EXPECT_FALSE(found1);
  EXPECT_STREQ(gst_structure_get_string(s, "target1-state"), "lost");
  EXPECT_FALSE(gst_structure_has_field(s, "target1-ulx")) << "a target not found has no corners";
  gst_structure_free(s);
}

}  // namespace
}  // namespace nft::testing
