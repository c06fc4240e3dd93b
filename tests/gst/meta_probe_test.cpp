// GstNftMeta as an application reads it: through the installed header <nft/gst/meta.h> alone (the
// API type found by its name, no symbol of the plugin), in a pad probe of an element downstream of
// nfttrack in a pipeline, checked against the scene's known quad and against the bus message of the
// same buffer.

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gst_test_support.h"
#include "nft/gst/meta.h"

namespace nft::testing {
namespace {

/// What the probe copied out of one buffer's meta (the meta lives only as long as the buffer).
struct Seen {
  bool hasMeta = false;
  guint64 frame = 0;
  guint nTargets = 0;
  std::string name, state;
  bool found = false;
  float corners[8] = {};
  double R[9] = {}, t[3] = {};
  int inliers = 0;
};

GstPadProbeReturn readMeta(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* seen = static_cast<std::vector<Seen>*>(data);
  Seen s;
  const GstNftMeta* meta = gst_buffer_get_nft_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  s.hasMeta = meta != nullptr;
  if (meta != nullptr) {
    s.frame = meta->frame;
    s.nTargets = meta->n_targets;
    if (meta->n_targets > 0) {
      const GstNftTargetMeta& t = meta->targets[0];
      s.name = t.name;
      s.state = t.state;
      s.found = t.found != FALSE;
      for (int k = 0; k < 8; ++k) s.corners[k] = t.corners[k];
      for (int k = 0; k < 9; ++k) s.R[k] = t.R[k];
      for (int k = 0; k < 3; ++k) s.t[k] = t.t[k];
      s.inliers = t.inliers;
    }
  }
  seen->push_back(s);
  return GST_PAD_PROBE_OK;
}

TEST(NftTrackMeta, APadProbeDownstreamReadsThePosesThroughThePublicHeader) {
  initGstreamer();
  // The plugin registers the API type when it loads, before any buffer: an application can look
  // it up from then on (a fresh process per test: nothing has been tracked yet).
  EXPECT_NE(gst_nft_meta_api_type(), static_cast<GType>(0)) << GST_NFT_META_API_NAME " is not registered";

  const cv::Mat& frame = scene().frame;
  const cv::Mat blank(frame.size(), CV_8UC1, cv::Scalar(128));
  // The scene, the scene again (tracked), a blank frame (lost), the scene (found again).
  const std::vector<const cv::Mat*> frames = {&frame, &frame, &blank, &frame};
  const std::vector<bool> expectFound = {true, true, false, true};

  GError* error = nullptr;
  const std::string description = "appsrc name=src format=time caps=\"" + capsOf(frame, GST_VIDEO_FORMAT_GRAY8) +
                                  "\" ! nfttrack name=track target=\"" + scene().targetPath.string() +
                                  "\" ! identity name=down ! fakesink sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_NE(pipeline, nullptr);
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* track = gst_bin_get_by_name(GST_BIN(pipeline), "track");
  GstElement* down = gst_bin_get_by_name(GST_BIN(pipeline), "down");
  // Downstream: identity's sink pad (the buffers nfttrack pushed); upstream: nfttrack's own sink pad.
  std::vector<Seen> downstream, upstream;
  GstPad* downPad = gst_element_get_static_pad(down, "sink");
  GstPad* trackSink = gst_element_get_static_pad(track, "sink");
  gst_pad_add_probe(downPad, GST_PAD_PROBE_TYPE_BUFFER, readMeta, &downstream, nullptr);
  gst_pad_add_probe(trackSink, GST_PAD_PROBE_TYPE_BUFFER, readMeta, &upstream, nullptr);

  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (size_t i = 0; i < frames.size(); ++i) {
    GstBuffer* buffer = bufferOf(*frames[i], GST_VIDEO_FORMAT_GRAY8);
    GST_BUFFER_PTS(buffer) = i * GST_SECOND / 30;
    GstFlowReturn flow = GST_FLOW_ERROR;
    g_signal_emit_by_name(src, "push-buffer", buffer, &flow);
    gst_buffer_unref(buffer);
    ASSERT_EQ(flow, GST_FLOW_OK) << "frame " << i;
  }
  GstFlowReturn flow = GST_FLOW_ERROR;
  g_signal_emit_by_name(src, "end-of-stream", &flow);
  // Until EOS: the nft-result messages, in buffer order (popping with a filter drops the messages
  // it does not match, so the element messages are in the filter too).
  GstBus* bus = gst_element_get_bus(pipeline);
  std::vector<GstStructure*> messages;
  bool eos = false;
  while (GstMessage* m = gst_bus_timed_pop_filtered(
             bus, 120 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstMessageType type = GST_MESSAGE_TYPE(m);
    const GstStructure* s = gst_message_get_structure(m);
    if (type == GST_MESSAGE_ELEMENT && gst_structure_has_name(s, "nft-result")) messages.push_back(gst_structure_copy(s));
    eos = type == GST_MESSAGE_EOS;
    const bool stop = type != GST_MESSAGE_ELEMENT;
    gst_message_unref(m);
    if (stop) break;
  }
  EXPECT_TRUE(eos) << "no EOS within 120 s, or the pipeline posted an error";
  gst_element_set_state(pipeline, GST_STATE_NULL);

  ASSERT_EQ(upstream.size(), frames.size());
  for (const Seen& s : upstream) EXPECT_FALSE(s.hasMeta) << "a buffer carried the meta before nfttrack";
  ASSERT_EQ(downstream.size(), frames.size());
  ASSERT_EQ(messages.size(), frames.size());
  static const char* const kCorner[8] = {"ulx", "uly", "urx", "ury", "lrx", "lry", "llx", "lly"};
  for (size_t i = 0; i < frames.size(); ++i) {
    const Seen& s = downstream[i];
    ASSERT_TRUE(s.hasMeta) << "frame " << i;
    EXPECT_EQ(s.frame, i);
    ASSERT_EQ(s.nTargets, 1u);
    EXPECT_EQ(s.name, scene().targetPath.filename().string());
    EXPECT_EQ(s.found, expectFound[i]) << "frame " << i << " (" << s.state << ")";
    // The bus message of the same buffer says the same.
    const GstStructure* m = messages[i];
    guint64 messageFrame = 99;
    gint found = -1, inliers = -1;
    ASSERT_TRUE(gst_structure_get_uint64(m, "frame", &messageFrame));
    EXPECT_EQ(messageFrame, s.frame);
    ASSERT_TRUE(gst_structure_get_int(m, "found", &found));
    EXPECT_EQ(found, s.found ? 1 : 0) << "frame " << i;
    EXPECT_EQ(std::string(gst_structure_get_string(m, "target0-state")), s.state) << "frame " << i;
    ASSERT_TRUE(gst_structure_get_int(m, "target0-inliers", &inliers));
    EXPECT_EQ(inliers, s.inliers) << "frame " << i;
    if (!s.found) {
      for (float c : s.corners) EXPECT_EQ(c, 0.0f) << "frame " << i << ": corners of a target not found";
      continue;
    }
    EXPECT_GT(s.inliers, 20) << "frame " << i;
    for (int c = 0; c < 8; ++c) {
      double v = NAN;
      ASSERT_TRUE(gst_structure_get_double(m, (std::string("target0-") + kCorner[c]).c_str(), &v)) << kCorner[c];
      EXPECT_DOUBLE_EQ(v, static_cast<double>(s.corners[c])) << "frame " << i << " " << kCorner[c];
    }
    // The scene's quad, where the target was warped to: the corners are real ones.
    for (int c = 0; c < 4; ++c) {
      const cv::Point2f corner(s.corners[2 * c], s.corners[2 * c + 1]);
      EXPECT_LT(cv::norm(corner - scene().quad[static_cast<size_t>(c)]), 2.0) << "frame " << i << " corner " << c;
    }
    // R row by row and t as the message's r00..r22 and tx ty tz (the layout the header documents).
    static const char* const kR[9] = {"r00", "r01", "r02", "r10", "r11", "r12", "r20", "r21", "r22"};
    for (int k = 0; k < 9; ++k) {
      double v = NAN;
      ASSERT_TRUE(gst_structure_get_double(m, (std::string("target0-") + kR[k]).c_str(), &v)) << kR[k];
      EXPECT_DOUBLE_EQ(v, s.R[k]) << "frame " << i << " " << kR[k];
    }
    static const char* const kT[3] = {"tx", "ty", "tz"};
    for (int k = 0; k < 3; ++k) {
      double v = NAN;
      ASSERT_TRUE(gst_structure_get_double(m, (std::string("target0-") + kT[k]).c_str(), &v)) << kT[k];
      EXPECT_DOUBLE_EQ(v, s.t[k]) << "frame " << i << " " << kT[k];
    }
    EXPECT_GT(s.t[2], 0.0) << "the target in front of the camera";
  }
  EXPECT_EQ(downstream[1].state, "tracking") << "the second frame of the same scene is tracked";

  for (GstStructure* m : messages) gst_structure_free(m);
  gst_object_unref(bus);
  gst_object_unref(downPad);
  gst_object_unref(trackSink);
  gst_object_unref(src);
  gst_object_unref(track);
  gst_object_unref(down);
  gst_object_unref(pipeline);
}

}  // namespace
}  // namespace nft::testing
