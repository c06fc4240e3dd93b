#include "gst/result_message.h"

#include <string>

namespace nft::gst {

GstStructure* resultStructure(const FrameResult& result, GstClockTime pts, double elementMs) {
  int found = 0;
  for (const TargetResult& t : result.targets) found += t.found ? 1 : 0;
  GstStructure* s = gst_structure_new(kResultStructureName,                                      //
                                      "frame", G_TYPE_UINT64, static_cast<guint64>(result.frame),  //
                                      "timestamp", G_TYPE_UINT64, static_cast<guint64>(pts),       //
                                      "found", G_TYPE_INT, found,                                  //
                                      "targets", G_TYPE_INT, static_cast<gint>(result.targets.size()),
                                      "process-ms", G_TYPE_DOUBLE, result.timings.total,  //
                                      "element-ms", G_TYPE_DOUBLE, elementMs,             //
                                      "search-in-flight", G_TYPE_BOOLEAN, static_cast<gboolean>(result.searchInFlight),
                                      nullptr);
  static const char* const kCorner[8] = {"ulx", "uly", "urx", "ury", "lrx", "lry", "llx", "lly"};
  for (size_t i = 0; i < result.targets.size(); ++i) {
    const TargetResult& t = result.targets[i];
    const std::string p = "target" + std::to_string(i) + "-";
    const auto set = [&](const char* field, GType type, auto value) {
      gst_structure_set(s, (p + field).c_str(), type, value, nullptr);
    };
    set("id", G_TYPE_INT, static_cast<gint>(t.id));
    set("name", G_TYPE_STRING, t.name.c_str());
    set("state", G_TYPE_STRING, toString(t.state).c_str());
    set("found", G_TYPE_BOOLEAN, static_cast<gboolean>(t.found));
    set("inliers", G_TYPE_INT, static_cast<gint>(t.inliers));
    set("reproj-px", G_TYPE_DOUBLE, t.reprojectionErrorPx);
    if (!t.found || t.corners.size() != 4) continue;
    for (int c = 0; c < 8; ++c)
      set(kCorner[c], G_TYPE_DOUBLE, static_cast<double>(c % 2 == 0 ? t.corners[c / 2].x : t.corners[c / 2].y));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) set(("r" + std::to_string(r) + std::to_string(c)).c_str(), G_TYPE_DOUBLE, t.pose.R(r, c));
    static const char* const kRvec[3] = {"rx", "ry", "rz"};
    static const char* const kT[3] = {"tx", "ty", "tz"};
    for (int k = 0; k < 3; ++k) set(kRvec[k], G_TYPE_DOUBLE, t.pose.rvec[k]);
    for (int k = 0; k < 3; ++k) set(kT[k], G_TYPE_DOUBLE, t.pose.t[k]);
  }
  return s;
}

}  // namespace nft::gst
