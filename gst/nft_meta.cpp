#include "gst/nft_meta.h"

#include <cstring>

namespace {

void clearTargets(GstNftMeta* m) {
  for (guint i = 0; i < m->n_targets; ++i) g_free(m->targets[i].name);
  g_free(m->targets);
  m->targets = nullptr;
  m->n_targets = 0;
}

/// Fills `m` with a deep copy of `n` entries.
void copyTargets(GstNftMeta* m, const GstNftTargetMeta* targets, guint n) {
  m->n_targets = n;
  m->targets = g_new0(GstNftTargetMeta, n);
  for (guint i = 0; i < n; ++i) {
    m->targets[i] = targets[i];
    m->targets[i].name = g_strdup(targets[i].name);
  }
}

gboolean metaInit(GstMeta* meta, gpointer, GstBuffer*) {
  auto* m = reinterpret_cast<GstNftMeta*>(meta);
  m->frame = 0;
  m->n_targets = 0;
  m->targets = nullptr;
  return TRUE;
}

void metaFree(GstMeta* meta, GstBuffer*) { clearTargets(reinterpret_cast<GstNftMeta*>(meta)); }

/// Copies (buffer copies, make_writable); other transforms (scaling...) keep it too: its corners
/// then refer to the frame nfttrack saw.
gboolean metaTransform(GstBuffer* dest, GstMeta* meta, GstBuffer*, GQuark, gpointer) {
  const auto* src = reinterpret_cast<const GstNftMeta*>(meta);
  auto* d = reinterpret_cast<GstNftMeta*>(gst_buffer_add_meta(dest, gst_nft_meta_get_info(), nullptr));
  if (d == nullptr) return FALSE;
  d->frame = src->frame;
  copyTargets(d, src->targets, src->n_targets);
  return TRUE;
}

}  // namespace

GType gst_nft_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar* tags[] = {nullptr};  // tied to no property of the video: kept by every element
  if (g_once_init_enter(&type)) {
    const GType t = gst_meta_api_type_register(GST_NFT_META_API_NAME, tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

const GstMetaInfo* gst_nft_meta_get_info(void) {
  static const GstMetaInfo* info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo* i = gst_meta_register(gst_nft_meta_api_get_type(), "GstNftMeta", sizeof(GstNftMeta), metaInit,
                                             metaFree, metaTransform);
    g_once_init_leave(&info, i);
  }
  return info;
}

namespace nft::gst {

GstNftMeta* addNftMeta(GstBuffer* buffer, const FrameResult& result) {
  auto* m = reinterpret_cast<GstNftMeta*>(gst_buffer_add_meta(buffer, gst_nft_meta_get_info(), nullptr));
  m->frame = static_cast<guint64>(result.frame);
  m->n_targets = static_cast<guint>(result.targets.size());
  m->targets = g_new0(GstNftTargetMeta, m->n_targets);
  for (guint i = 0; i < m->n_targets; ++i) {
    const TargetResult& r = result.targets[i];
    GstNftTargetMeta& t = m->targets[i];
    t.id = r.id;
    t.name = g_strdup(r.name.c_str());
    t.state = r.state == TrackingState::Detecting ? "detecting" : r.state == TrackingState::Tracking ? "tracking" : "lost";
    t.found = r.found && r.corners.size() == 4;
    if (t.found) {
      for (int c = 0; c < 4; ++c) {
        t.corners[2 * c] = r.corners[static_cast<size_t>(c)].x;
        t.corners[2 * c + 1] = r.corners[static_cast<size_t>(c)].y;
      }
      for (int k = 0; k < 9; ++k) t.R[k] = r.pose.R(k / 3, k % 3);
      for (int k = 0; k < 3; ++k) t.t[k] = r.pose.t[k];
    }
    t.inliers = r.inliers;
  }
  return m;
}

}  // namespace nft::gst
