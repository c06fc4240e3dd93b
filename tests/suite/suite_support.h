#pragma once
// What the suite tests (suite_*_test.cpp) share: temporary folders, small files, a tiny video,
// and a stand-in for nft_replay (a shell script that writes a report and a pose CSV the way
// nft_replay does, and fails or dies for targets named so).

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "support/program_run.h"

namespace nft::testing {

/// Removes a temporary folder when the test ends, also when an ASSERT returns early.
struct RemovedAtEnd {
  std::filesystem::path path;  ///< the folder
  ~RemovedAtEnd() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

/// Writes `text` to `path` (creating its folder).
inline void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// A 64×48 MJPG AVI of `frames` frames, frame i filled with grey level 10 i and a square at x = 2 i.
inline void writeTinyVideo(const std::filesystem::path& path, int frames) {
  cv::VideoWriter writer(path.string(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 30, cv::Size(64, 48));
  for (int i = 0; i < frames; ++i) {
    cv::Mat frame(48, 64, CV_8UC3, cv::Scalar::all(10 * i));
    cv::rectangle(frame, cv::Rect(2 * i, 10, 8, 8), cv::Scalar(255, 255, 255), cv::FILLED);
    writer.write(frame);
  }
}

/// The pose CSV header of suite/pose_csv.h.
inline const char* kFakePoseHeader = "frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms";

/// An executable stand-in for nft_replay in `folder`: it parses --target, --report, --poses,
/// --frames (default 10) and --gt like nft_replay, appends "start <epoch> <target>" and "end
/// <epoch>" lines to $FAKE_REPLAY_LOG, sleeps $FAKE_REPLAY_SLEEP seconds (default 0), prints an
/// "nft_replay: target ...: trained" line as nft_replay does, and then:
/// for a target whose name contains "fail" (unless the file $FAKE_REPLAY_FIXED exists) prints
/// "nft_replay: cannot read target '<target>'" and exits 3; for "kill" kills itself (SIGKILL);
/// otherwise writes a pose CSV whose every frame is found at the corners (0,0) (10,0) (10,10)
/// (0,10) but frame 0, not found, and a report: frames, found = frames - 1, fps.tracker 100, and
/// with --gt a ground_truth block. @returns the script's path.
inline std::filesystem::path writeFakeReplay(const std::filesystem::path& folder) {
  const std::filesystem::path script = folder / "fake_replay.sh";
  writeFile(script, std::string(R"SH(#!/bin/sh
report= poses= target= gt= frames=10
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report=$2; shift ;;
    --poses) poses=$2; shift ;;
    --target) target=$2; shift ;;
    --frames) frames=$2; shift ;;
    --gt) gt=$2; shift ;;
  esac
  shift
done
[ -n "$FAKE_REPLAY_LOG" ] && echo "start $(date +%s.%N) $target" >> "$FAKE_REPLAY_LOG"
sleep "${FAKE_REPLAY_SLEEP:-0}"
echo "nft_replay: target $target: 10 keypoints (trained in 0.01 s)"
case "$target" in
  *fail*) if [ ! -e "$FAKE_REPLAY_FIXED" ]; then echo "nft_replay: cannot read target '$target'"; exit 3; fi ;;
  *kill*) kill -9 $$ ;;
esac
echo ")SH") + kFakePoseHeader + R"SH(" > "$poses"
echo "0,detecting,,,,,,,,,,,,,,,,,1.0" >> "$poses"
i=1
while [ $i -lt $frames ]; do
  echo "$i,tracking,0,0,10,0,10,10,0,10,0,0,0,0,0,1,50,0.1,1.0" >> "$poses"
  i=$((i + 1))
done
truth=null
if [ -n "$gt" ]; then
  truth="{\"frames\": $frames, \"success_5px\": $(( (frames - 1) * 1000 / frames ))e-3, \"success_10px\": $(( (frames - 1) * 1000 / frames ))e-3, \"median_error_px\": 0.0, \"visible_success_5px\": $(( (frames - 1) * 1000 / frames ))e-3, \"median_visible_error_px\": 0.0}"
fi
echo "{\"frames\": $frames, \"found\": $((frames - 1)), \"frame_size\": [64, 48], \"fps\": {\"tracker\": 100.0}, \"ground_truth\": $truth, \"completed\": true, \"error\": null}" > "$report"
[ -n "$FAKE_REPLAY_LOG" ] && echo "end $(date +%s.%N)" >> "$FAKE_REPLAY_LOG"
exit 0
)SH");
  ::chmod(script.c_str(), 0755);
  return script;
}

/// A gt.tsv of `frames` frames, every one with the corners (0,0) (10,0) (10,10) (0,10).
inline void writeFakeGroundTruth(const std::filesystem::path& path, int frames) {
  std::string text = "frame ulx uly urx ury lrx lry llx lly\n";
  for (int i = 0; i < frames; ++i) text += "frame" + std::to_string(i) + ".jpg 0 0 10 0 10 10 0 10\n";
  writeFile(path, text);
}

}  // namespace nft::testing
