#include "gst/live_source.h"

namespace nft::gst {

bool upstreamIsLive(GstBaseTransform* element) {
  GstQuery* query = gst_query_new_latency();
  gboolean live = FALSE;
  if (gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(element), query))
    gst_query_parse_latency(query, &live, nullptr, nullptr);
  gst_query_unref(query);
  return live == TRUE;
}

}  // namespace nft::gst
