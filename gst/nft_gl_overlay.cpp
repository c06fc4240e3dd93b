#include "gst/nft_gl_overlay.h"

#include <GLES2/gl2.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gst/gl_colour_background.h"
#include "gst/gl_luma_pass.h"
#include "gst/live_source.h"
#include "gst/nft_meta.h"
#include "gst/result_message.h"
#include "gst/saved_gl_state.h"
#include "gst/track_properties.h"
#include "gst/track_settings.h"

GST_DEBUG_CATEGORY_STATIC(nft_gl_overlay_debug);
#define GST_CAT_DEFAULT nft_gl_overlay_debug

namespace {

/// Property gpu-luma's id (after the shared ones, track_properties.h).
constexpr guint kPropGpuLuma = nft::gst::kPropDraw + 1;
/// gpu-luma's default: the faster of the two on the measured machine (docs/gstreamer.md, "The
/// element's cost").
constexpr gboolean kGpuLumaDefault = FALSE;

struct OverlayState {
  std::mutex lock;  // guards settings and gpuLuma
  nft::gst::TrackSettings settings;
  bool gpuLuma = kGpuLumaDefault;   // the property
  bool useGpuLuma = kGpuLumaDefault;  // its value for this run (read at start)
  nft::gst::GlLumaPass lumaPass;      // GL objects on GStreamer's context (gpu-luma)
  nft::gst::GlColourBackground colourBackground;
  GLuint inputTexture = 0;            // the buffer's input texture (gpu-luma)
  nft::SessionOptions options;
  std::unique_ptr<nft::Session> session;  // on GStreamer's GL context, made on its thread
  std::vector<std::uint8_t> pixels;       // the input frame read back: RGBA, or GRAY8 (gpu-luma); rows top first
  int width = 0, height = 0;
  nft::FrameResult result;                // of the buffer being filtered
  std::string error;                      // why filter_texture failed ("" when it did not)
  bool propertyError = false;
};

}  // namespace

struct _GstNftGlOverlay {
  GstGLFilter parent;
  OverlayState* state;
};

G_DEFINE_TYPE(GstNftGlOverlay, gst_nft_gl_overlay, GST_TYPE_GL_FILTER)

namespace {

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* spec) {
  OverlayState& st = *GST_NFT_GL_OVERLAY(object)->state;
  std::lock_guard<std::mutex> guard(st.lock);
  if (id == kPropGpuLuma) {
    st.gpuLuma = g_value_get_boolean(value) != FALSE;
    return;
  }
  if (!nft::gst::setTrackProperty(st.settings, id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* spec) {
  OverlayState& st = *GST_NFT_GL_OVERLAY(object)->state;
  std::lock_guard<std::mutex> guard(st.lock);
  if (id == kPropGpuLuma) {
    g_value_set_boolean(value, st.gpuLuma);
    return;
  }
  if (!nft::gst::getTrackProperty(st.settings, id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, spec);
}

void finalize(GObject* object) {
  delete GST_NFT_GL_OVERLAY(object)->state;
  G_OBJECT_CLASS(gst_nft_gl_overlay_parent_class)->finalize(object);
}

gboolean start(GstBaseTransform* trans) {
  GstNftGlOverlay* self = GST_NFT_GL_OVERLAY(trans);
  OverlayState& st = *self->state;
  {
    std::lock_guard<std::mutex> guard(st.lock);
    try {
      st.options = nft::gst::sessionOptionsOf(st.settings);
      st.options.adoptCurrentContext = true;
      st.useGpuLuma = st.gpuLuma;
    } catch (const nft::gst::PropertyError& e) {
      nft::gst::postPropertyError(GST_ELEMENT(self), e);
      return FALSE;
    }
  }
  const auto parent = GST_BASE_TRANSFORM_CLASS(gst_nft_gl_overlay_parent_class)->start;
  return parent != nullptr ? parent(trans) : TRUE;
}

/// On the GL thread: the Session and its GL objects freed while GStreamer's context is current.
void glStop(GstGLBaseFilter* base) {
  OverlayState& st = *GST_NFT_GL_OVERLAY(base)->state;
  st.session.reset();
  st.lumaPass.release();
  st.colourBackground.release();
  GST_GL_BASE_FILTER_CLASS(gst_nft_gl_overlay_parent_class)->gl_stop(base);
}

gboolean readPixels(gpointer data) {
  auto& st = *static_cast<OverlayState*>(data);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, st.width, st.height, GL_RGBA, GL_UNSIGNED_BYTE, st.pixels.data());
  return glGetError() == GL_NO_ERROR;
}

/// The GL error flags drained: the first one, or GL_NO_ERROR.
GLenum drainGlErrors() {
  GLenum first = GL_NO_ERROR;
  for (GLenum e = glGetError(); e != GL_NO_ERROR; e = glGetError())
    if (first == GL_NO_ERROR) first = e;
  return first;
}

/// After the frame's draws: a GL error of ours fails the buffer (the flags were drained before the
/// frame's first call, filterTexture).
gboolean checkGlErrors(OverlayState& st) {
  if (const GLenum e = drainGlErrors(); e != GL_NO_ERROR) {
    gchar* text = g_strdup_printf("GL error 0x%04x while tracking and drawing the frame", e);
    st.error = text;
    g_free(text);
    return FALSE;
  }
  return TRUE;
}

/// The RGBA path: the Session's render draws the frame it tracked (colour) and the augmentations
/// into the output texture GStreamer has bound.
gboolean renderAugmentations(gpointer data) {
  auto& st = *static_cast<OverlayState*>(data);
  try {
    st.session->render(st.result, nft::Viewport{0, 0, st.width, st.height});
  } catch (const std::exception& e) {
    st.error = std::string("render: ") + e.what();
    return FALSE;
  }
  return checkGlErrors(st);
}

/// The gpu-luma path: the Session's render (its background is the grey frame it tracked) into our
/// target, then the input's colour put back under the augmentations into the output texture
/// GStreamer has bound (gl_colour_background.h).
gboolean renderOverColour(gpointer data) {
  auto& st = *static_cast<OverlayState*>(data);
  {
    const nft::gst::SavedGlState output;  // GStreamer's framebuffer (the output) and viewport
    try {
      st.colourBackground.bindTarget(st.width, st.height);
      st.session->render(st.result, nft::Viewport{0, 0, st.width, st.height});
    } catch (const std::exception& e) {
      st.error = std::string("render: ") + e.what();
      return FALSE;
    }
  }
  try {
    st.colourBackground.composite(st.inputTexture);
  } catch (const std::exception& e) {
    st.error = std::string("the colour background pass: ") + e.what();
    return FALSE;
  }
  return checkGlErrors(st);
}

/// On the GL thread, GStreamer's context current: read the frame back, track it, draw it.
gboolean filterTexture(GstGLFilter* filter, GstGLMemory* input, GstGLMemory* output) {
  OverlayState& st = *GST_NFT_GL_OVERLAY(filter)->state;
  st.error.clear();
  st.propertyError = false;
  drainGlErrors();  // what GStreamer's own calls left: not this element's
  if (!st.session) {
    try {
      std::lock_guard<std::mutex> guard(st.lock);
      // From a camera the search for targets runs on the Session's worker (auto kept), from a
      // file in the streaming thread (track_settings.h).
      nft::SessionOptions options = st.options;
      nft::gst::resolveAsyncDetection(options, nft::gst::upstreamIsLive(GST_BASE_TRANSFORM(filter)));
      st.session = nft::gst::openSession(st.settings, options);
      GST_INFO_OBJECT(filter, "Session on GStreamer's context: %s, %s (%s)", st.session->gpuRenderer().c_str(),
                      st.session->glVersion().c_str(), st.session->contextDescription().c_str());
      for (const std::string& w : st.session->warnings())
        GST_ELEMENT_WARNING(filter, RESOURCE, SETTINGS, ("%s", w.c_str()), (nullptr));
    } catch (const nft::gst::PropertyError& e) {
      st.error = e.what();
      st.propertyError = true;
      return FALSE;
    } catch (const std::exception& e) {
      st.error = e.what();
      return FALSE;
    }
  }
  st.width = GST_VIDEO_INFO_WIDTH(&filter->in_info);
  st.height = GST_VIDEO_INFO_HEIGHT(&filter->in_info);
  nft::ImageView view;
  view.width = st.width;
  view.height = st.height;
  if (st.useGpuLuma) {
    // The luma on the GPU, a quarter of the RGBA bytes read back (gl_luma_pass.h).
    st.inputTexture = gst_gl_memory_get_texture_id(input);
    try {
      st.lumaPass.run(st.inputTexture, st.width, st.height, st.pixels);
    } catch (const std::exception& e) {
      st.error = std::string("the luma pass: ") + e.what();
      return FALSE;
    }
    view.format = nft::PixelFormat::Gray8;
    view.stride = st.lumaPass.stride();
  } else {
    // The RGBA frame read back; the Session turns it grey (cv::cvtColor) on the CPU.
    st.pixels.resize(static_cast<size_t>(st.width) * static_cast<size_t>(st.height) * 4u);
    if (!gst_gl_framebuffer_draw_to_texture(filter->fbo, input, readPixels, &st)) {
      st.error = "reading the input texture back failed (glReadPixels)";
      return FALSE;
    }
    view.format = nft::PixelFormat::Rgba8;
  }
  view.data = st.pixels.data();
  try {
    st.result = st.session->process(view);
  } catch (const std::exception& e) {
    st.error = e.what();
    return FALSE;
  }
  return gst_gl_framebuffer_draw_to_texture(filter->fbo, output, st.useGpuLuma ? renderOverColour : renderAugmentations,
                                            &st);
}

gboolean filterBuffer(GstGLFilter* filter, GstBuffer* inbuf, GstBuffer* outbuf) {
  GstNftGlOverlay* self = GST_NFT_GL_OVERLAY(filter);
  OverlayState& st = *self->state;
  const auto start = std::chrono::steady_clock::now();
  if (!gst_gl_filter_filter_texture(filter, inbuf, outbuf)) {
    const std::string why = st.error.empty() ? "the GL filter failed" : st.error;
    if (st.propertyError)
      GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", why.c_str()), (nullptr));
    else
      GST_ELEMENT_ERROR(self, STREAM, FAILED, ("buffer at %" GST_TIME_FORMAT ": %s", GST_TIME_ARGS(GST_BUFFER_PTS(inbuf)),
                                               why.c_str()),
                        (nullptr));
    return FALSE;
  }
  nft::gst::addNftMeta(outbuf, st.result);
  const double elementMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  gst_element_post_message(GST_ELEMENT(self),
                           gst_message_new_element(GST_OBJECT(self), nft::gst::resultStructure(
                                                                          st.result, GST_BUFFER_PTS(inbuf), elementMs)));
  return TRUE;
}

}  // namespace

static void gst_nft_gl_overlay_class_init(GstNftGlOverlayClass* klass) {
  GObjectClass* object = G_OBJECT_CLASS(klass);
  GstElementClass* element = GST_ELEMENT_CLASS(klass);
  object->set_property = setProperty;
  object->get_property = getProperty;
  object->finalize = finalize;
  nft::gst::installTrackProperties(object, false);
  g_object_class_install_property(
      object, kPropGpuLuma,
      g_param_spec_boolean(
          "gpu-luma", "Luma on the GPU",
          "How the frame to track is read from GL memory: true, a shader pass on GStreamer's GL context computes the "
          "luma (OpenCV's RGBA to grey, bit for bit) and a quarter of the RGBA bytes is read back as GRAY8; false, the "
          "RGBA frame is read back and turned grey on the CPU. The same poses and picture either way; false measured "
          "faster on Mesa's llvmpipe (docs/gstreamer.md); on a GPU whose readback is slow, true may be",
          kGpuLumaDefault, static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  gst_element_class_set_static_metadata(
      element, "Natural-feature tracker on GL memory", "Filter/Effect/Video",
      "nfttrack on GStreamer's GL context (GLES2): finds planar targets, follows them, estimates the camera's pose and "
      "draws the frame with the augmentations with the tracker's own renderer; per buffer a GstNftMeta and an "
      "element message nft-result",
      "nft maintainers <nft@invalid>");
  gst_gl_filter_add_rgba_pad_templates(GST_GL_FILTER_CLASS(klass));
  GST_BASE_TRANSFORM_CLASS(klass)->start = start;
  GST_GL_BASE_FILTER_CLASS(klass)->supported_gl_api = GST_GL_API_GLES2;
  GST_GL_BASE_FILTER_CLASS(klass)->gl_stop = glStop;
  GST_GL_FILTER_CLASS(klass)->filter = filterBuffer;
  GST_GL_FILTER_CLASS(klass)->filter_texture = filterTexture;
  GST_DEBUG_CATEGORY_INIT(nft_gl_overlay_debug, "nftgloverlay", 0, "natural-feature tracking on GL memory");
}

static void gst_nft_gl_overlay_init(GstNftGlOverlay* self) { self->state = new OverlayState; }

gboolean gst_nft_gl_overlay_register(GstPlugin* plugin) {
  return gst_element_register(plugin, "nftgloverlay", GST_RANK_NONE, GST_TYPE_NFT_GL_OVERLAY);
}
