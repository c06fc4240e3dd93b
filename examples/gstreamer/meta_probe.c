/* meta_probe: reads GstNftMeta, nfttrack's per-buffer result, in a pad probe of the element
 * downstream of it — what an application that runs the pipeline in its own process does to get the
 * poses with each buffer (an application in another process reads the bus message "nft-result",
 * nft_bus_poses.py). Plain C, GStreamer and <nft/gst/meta.h> only; no link to libnft or the plugin:
 *
 *   cc meta_probe.c -o meta_probe $(pkg-config --cflags --libs gstreamer-1.0) -I<prefix>/include
 *   GST_PLUGIN_PATH=<prefix>/lib/gstreamer-1.0 ./meta_probe book.mp4 cv_cover.jpg
 *
 * Prints per buffer "frame N: UL x y UR x y LR x y LL x y tvec x y z" (frame pixels; t in target
 * pixels, or metres with a target width) or "frame N: not found"; exits 1 on a pipeline error. */
#include <gst/gst.h>
#include <nft/gst/meta.h>
#include <stdio.h>

static GstPadProbeReturn print_meta(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  const GstNftMeta* meta = gst_buffer_get_nft_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  (void)pad;
  (void)data;
  if (meta == NULL || meta->n_targets == 0) {
    printf("a buffer without GstNftMeta\n");
  } else if (!meta->targets[0].found) {
    printf("frame %" G_GUINT64_FORMAT ": not found\n", meta->frame);
  } else {
    const gfloat* c = meta->targets[0].corners;
    const gdouble* t = meta->targets[0].t;
    printf("frame %" G_GUINT64_FORMAT ": UL %.4f %.4f UR %.4f %.4f LR %.4f %.4f LL %.4f %.4f tvec %.6f %.6f %.6f\n",
           meta->frame, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], t[0], t[1], t[2]);
  }
  return GST_PAD_PROBE_OK;
}

int main(int argc, char** argv) {
  GError* error = NULL;
  GstElement* pipeline;
  GstMessage* end;
  int status = 0;
  gst_init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: meta_probe VIDEO TARGET\n"
                    "Tracks TARGET (an image or .nftm) through VIDEO with nfttrack and prints the GstNftMeta\n"
                    "of every buffer, read in a pad probe downstream.\n");
    return 2;
  }
  pipeline = gst_parse_launch("filesrc name=src ! decodebin ! videoconvert ! nfttrack name=track ! fakesink name=sink sync=false",
                              &error);
  if (pipeline == NULL) {
    fprintf(stderr, "meta_probe: %s (is the plugin on GST_PLUGIN_PATH?)\n", error->message);
    return 1;
  }
  {
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement* track = gst_bin_get_by_name(GST_BIN(pipeline), "track");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad* pad = gst_element_get_static_pad(sink, "sink");
    g_object_set(src, "location", argv[1], NULL);
    g_object_set(track, "target", argv[2], NULL);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, print_meta, NULL, NULL);
    gst_object_unref(pad);
    gst_object_unref(sink);
    gst_object_unref(track);
    gst_object_unref(src);
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  end = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_CLOCK_TIME_NONE,
                                   (GstMessageType)(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR) {
    GError* e = NULL;
    gst_message_parse_error(end, &e, NULL);
    fprintf(stderr, "meta_probe: %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(end)), e->message);
    g_error_free(e);
    status = 1;
  }
  gst_message_unref(end);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return status;
}
