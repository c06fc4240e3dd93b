#pragma once
// The per-frame pose CSV of nft_replay (--poses): a stable interface for scripts and
// regressions. Header, exactly:
//
//   frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms
//
// frame: 0-based decoded frame index; state: detecting | tracking | lost (and in the CSV of
// `nft_eval baseline --every N`, which has no pose fields, skipped: a frame not run); the target image's
// corners (0,0), (w,0), (w,h), (0,h) in frame pixels; the pose's rotation vector (radians) and
// translation (metres when the target's width is known, else target pixels); inliers and mean
// reprojection error (pixels) of the lane that produced the result; ms: the Session's time for
// the frame (FrameTimings::total of process(), decoding and encoding excluded). Corner, pose, inlier and
// error fields are empty when the target was not found. Every row is flushed as it is written,
// so a crash leaves only complete rows.

#include <cstdio>
#include <string>

#include "nft/types.h"

namespace nft::replay {

/// The CSV header line (without the newline).
inline constexpr const char* kPoseCsvHeader =
    "frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms";

/// The header with several targets: a `target` column (the target's name) after `frame`, and one
/// row per reported target per frame (FrameResult::targets; a frame without any has no row).
inline constexpr const char* kMultiTargetPoseCsvHeader =
    "frame,target,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms";

/// One CSV row for frame `index` (without the newline): the first target of `frame` (not found
/// when it has none).
std::string poseCsvRow(int index, const FrameResult& frame);
/// One row of the several-targets CSV for `target` of frame `index` (ms: the frame's time).
std::string multiTargetPoseCsvRow(int index, const TargetResult& target, const FrameResult& frame);

/// Writes the pose CSV, one flushed row per frame. Move-only; closes the file on destruction.
class PoseCsvWriter {
 public:
  /// Creates (truncates) `path` and writes the header (kMultiTargetPoseCsvHeader when
  /// `severalTargets`, else kPoseCsvHeader).
  /// @throws std::runtime_error naming the file when it cannot be created or written.
  explicit PoseCsvWriter(const std::string& path, bool severalTargets = false);
  ~PoseCsvWriter();
  PoseCsvWriter(PoseCsvWriter&& other) noexcept;
  PoseCsvWriter& operator=(PoseCsvWriter&&) = delete;
  PoseCsvWriter(const PoseCsvWriter&) = delete;
  PoseCsvWriter& operator=(const PoseCsvWriter&) = delete;

  /// Appends and flushes the row (several targets: the rows) of frame `index`. @throws std::runtime_error naming the file
  /// when the write fails (e.g. disk full).
  void write(int index, const FrameResult& frame);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  bool several_ = false;
};

}  // namespace nft::replay
