#include "gst/nft_track.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gst/frame_drawing.h"
#include "gst/live_source.h"
#include "gst/nft_meta.h"
#include "gst/result_message.h"
#include "gst/track_properties.h"
#include "gst/track_settings.h"
#include "gst/video_view.h"

GST_DEBUG_CATEGORY_STATIC(nft_track_debug);
#define GST_CAT_DEFAULT nft_track_debug

namespace {

/// The element's C++ state, behind the GObject instance.
struct TrackState {
  std::mutex lock;                       // guards all below (properties are set from any thread)
  nft::gst::TrackSettings settings;
  nft::SessionOptions options;           // checked at start
  std::unique_ptr<nft::Session> session; // made on the streaming thread at the first buffer
  std::vector<nft::TargetInfo> targets;
  cv::Size frameSize;                    // of the frames the Session tracks (empty before the first)
  bool capsRefused = false;              // the caps' error is posted: their buffers are refused
};

}  // namespace

struct _GstNftTrack {
  GstVideoFilter parent;
  TrackState* state;
};

G_DEFINE_TYPE(GstNftTrack, gst_nft_track, GST_TYPE_VIDEO_FILTER)

namespace {

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* spec) {
  TrackState& st = *GST_NFT_TRACK(object)->state;
  std::lock_guard<std::mutex> guard(st.lock);
  if (!nft::gst::setTrackProperty(st.settings, id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* spec) {
  TrackState& st = *GST_NFT_TRACK(object)->state;
  std::lock_guard<std::mutex> guard(st.lock);
  if (!nft::gst::getTrackProperty(st.settings, id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void finalize(GObject* object) {
  delete GST_NFT_TRACK(object)->state;
  G_OBJECT_CLASS(gst_nft_track_parent_class)->finalize(object);
}

/// READY → PAUSED: the properties checked (files, config) before any buffer.
gboolean start(GstBaseTransform* trans) {
  GstNftTrack* self = GST_NFT_TRACK(trans);
  TrackState& st = *self->state;
  std::lock_guard<std::mutex> guard(st.lock);
  try {
    st.options = nft::gst::sessionOptionsOf(st.settings);
  } catch (const nft::gst::PropertyError& e) {
    nft::gst::postPropertyError(GST_ELEMENT(self), e);
    return FALSE;
  }
  return TRUE;
}

/// PAUSED → READY. The Session is normally gone already (EOS, on its thread); when the pipeline
/// stops without EOS it is freed here, its owned context released by this thread.
gboolean stop(GstBaseTransform* trans) {
  TrackState& st = *GST_NFT_TRACK(trans)->state;
  std::lock_guard<std::mutex> guard(st.lock);
  st.session.reset();
  st.targets.clear();
  st.frameSize = cv::Size();
  st.capsRefused = false;
  return TRUE;
}

/// The caps' frame: 4:2:0 formats need an even size; one Session tracks one frame size. Caps it
/// cannot track are accepted here but posted as an error, once, and their buffers refused
/// (not-negotiated): failing set_info instead makes the base class retry the same caps.
gboolean setInfo(GstVideoFilter* filter, GstCaps* incaps, GstVideoInfo* in_info, GstCaps*, GstVideoInfo*) {
  GstNftTrack* self = GST_NFT_TRACK(filter);
  TrackState& st = *self->state;
  const int w = GST_VIDEO_INFO_WIDTH(in_info), h = GST_VIDEO_INFO_HEIGHT(in_info);
  std::lock_guard<std::mutex> guard(st.lock);
  std::string why;
  if (nft::gst::isYuv420(GST_VIDEO_INFO_FORMAT(in_info)) && (w % 2 != 0 || h % 2 != 0))
    why = "a 4:2:0 format needs an even width and height, got " + std::to_string(w) + "x" + std::to_string(h);
  else if (!st.frameSize.empty() && (st.frameSize.width != w || st.frameSize.height != h))
    why = "the frame size changed from " + std::to_string(st.frameSize.width) + "x" +
          std::to_string(st.frameSize.height) + " to " + std::to_string(w) + "x" + std::to_string(h) +
          ": one nfttrack tracks one frame size (the camera's intrinsics are fixed by the first frame)";
  st.capsRefused = !why.empty();
  if (st.capsRefused) {
    gchar* caps = gst_caps_to_string(incaps);
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("caps %s: %s", caps, why.c_str()), (nullptr));
    g_free(caps);
  }
  return TRUE;
}

GstFlowReturn transformIp(GstBaseTransform* trans, GstBuffer* buffer) {
  const auto start = std::chrono::steady_clock::now();
  GstNftTrack* self = GST_NFT_TRACK(trans);
  GstVideoFilter* filter = GST_VIDEO_FILTER(trans);
  TrackState& st = *self->state;
  std::unique_lock<std::mutex> guard(st.lock);
  if (st.capsRefused) return GST_FLOW_NOT_NEGOTIATED;  // the error is on the bus already
  if (!st.session) {
    try {
      // From a camera the search for targets runs on the Session's worker (auto kept), from a
      // file in the streaming thread (track_settings.h).
      nft::SessionOptions options = st.options;
      nft::gst::resolveAsyncDetection(options, nft::gst::upstreamIsLive(trans));
      st.session = nft::gst::openSession(st.settings, options);
      st.targets = st.session->targets();
      for (const std::string& w : st.session->warnings()) GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS, ("%s", w.c_str()), (nullptr));
      GST_INFO_OBJECT(self, "Session on %s (%s), %zu targets", st.session->gpuRenderer().c_str(),
                      st.session->contextDescription().c_str(), st.targets.size());
    } catch (const nft::gst::PropertyError& e) {
      nft::gst::postPropertyError(GST_ELEMENT(self), e);
      return GST_FLOW_ERROR;
    } catch (const std::exception& e) {
      GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("%s", e.what()), (nullptr));
      return GST_FLOW_ERROR;
    }
  }
  const bool draw = st.settings.draw;
  GstVideoFrame frame;
  const auto flags = static_cast<GstMapFlags>(GST_MAP_READ | (draw ? GST_MAP_WRITE : 0));
  if (!gst_video_frame_map(&frame, &filter->in_info, buffer, flags)) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("buffer of %" G_GSIZE_FORMAT " bytes cannot be mapped as %s",
                                             gst_buffer_get_size(buffer), gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&filter->in_info))),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  nft::FrameResult result;
  try {
    const nft::ImageView view = nft::gst::imageViewOf(frame);
    result = st.session->process(view, GST_CLOCK_TIME_IS_VALID(pts) ? static_cast<long long>(pts) : 0);
    st.frameSize = cv::Size(view.width, view.height);
    if (draw) nft::gst::drawAugmentations(frame, result, *st.session->calibration(), st.targets);
  } catch (const std::exception& e) {
    gst_video_frame_unmap(&frame);
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("buffer at %" GST_TIME_FORMAT ": %s", GST_TIME_ARGS(pts), e.what()), (nullptr));
    return GST_FLOW_ERROR;
  }
  gst_video_frame_unmap(&frame);
  guard.unlock();
  nft::gst::addNftMeta(buffer, result);
  const double elementMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self),
                                                                      nft::gst::resultStructure(result, pts, elementMs)));
  return GST_FLOW_OK;
}

/// EOS: the Session freed on the thread its context is current on.
gboolean sinkEvent(GstBaseTransform* trans, GstEvent* event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    TrackState& st = *GST_NFT_TRACK(trans)->state;
    std::lock_guard<std::mutex> guard(st.lock);
    st.session.reset();
    st.targets.clear();
    st.frameSize = cv::Size();
  }
  return GST_BASE_TRANSFORM_CLASS(gst_nft_track_parent_class)->sink_event(trans, event);
}

}  // namespace

static void gst_nft_track_class_init(GstNftTrackClass* klass) {
  GObjectClass* object = G_OBJECT_CLASS(klass);
  GstElementClass* element = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* transform = GST_BASE_TRANSFORM_CLASS(klass);
  GstVideoFilterClass* filter = GST_VIDEO_FILTER_CLASS(klass);
  object->set_property = setProperty;
  object->get_property = getProperty;
  object->finalize = finalize;
  nft::gst::installTrackProperties(object, true);

  gst_element_class_set_static_metadata(
      element, "Natural-feature tracker", "Filter/Analyzer/Video",
      "Finds planar targets (a book cover, a poster) in video, follows them and estimates the camera's pose: per "
      "buffer a GstNftMeta and an element message nft-result (frame, found, and each target's name, state, "
      "corners, R, t, inliers); the video passes through, with the augmentations drawn when draw=true",
      "nft maintainers <nft@invalid>");
  GstCaps* caps = gst_caps_from_string(
      (std::string("video/x-raw, format=(string)") + nft::gst::supportedFormatsCaps() +
       ", width=(int)[ 16, 8192 ], height=(int)[ 16, 8192 ], framerate=(fraction)[ 0/1, MAX ]")
          .c_str());
  gst_element_class_add_pad_template(element, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);

  transform->start = start;
  transform->stop = stop;
  transform->transform_ip = transformIp;
  transform->sink_event = sinkEvent;
  transform->passthrough_on_same_caps = FALSE;
  transform->transform_ip_on_passthrough = FALSE;
  filter->set_info = setInfo;
  GST_DEBUG_CATEGORY_INIT(nft_track_debug, "nfttrack", 0, "natural-feature tracking");
}

static void gst_nft_track_init(GstNftTrack* self) {
  self->state = new TrackState;
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), FALSE);
}

gboolean gst_nft_track_register(GstPlugin* plugin) {
  return gst_element_register(plugin, "nfttrack", GST_RANK_NONE, GST_TYPE_NFT_TRACK);
}
