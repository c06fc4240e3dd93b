// nft_replay: the main job — replays a recorded video (or a folder of frames, or a camera)
// through the two-lane tracker, headless on the EGL context (llvmpipe without a GPU), and writes
// the rendered video, a per-frame pose CSV and a JSON report; with ground truth, the accuracy.
// Without --target/--video it runs on a sequence synthesised from opencv-doc's sample images,
// whose ground truth is exact, and ends with an accuracy report.

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "apps/replay/replay_session.h"
#include "config/config.h"

int main(int argc, char** argv) {
  CLI::App app{
      "nft_replay: track a planar target through a recorded video, headless.\n"
      "Trains the target image at start-up (or loads a .nftm model), runs the detection and NCC tracking lanes\n"
      "on every frame, renders the augmentations offscreen, and writes the video, a per-frame pose CSV and a\n"
      "JSON report. Without --target and --video: a built-in synthetic hand-held sequence (from the Debian\n"
      "package opencv-doc's graf1.png) with exact ground truth, ending with an accuracy report."};
  nft::replay::ReplayRequest request;
  bool printConfig = false;
  std::vector<std::string> targets;
  app.add_option("--target", targets,
                 "target image (trained at start-up) or model file (.nftm); repeat for several targets");
  app.add_option("--targets", request.targetDatabase, "target database (.nftdb, nft_train --database)");
  app.add_option("--gt-target", request.groundTruthTarget,
                 "with several targets: the name of the one --gt follows and the statistics score (default: the first)");
  app.add_option("--video", request.video, "input: video file, folder of frames (name order) or camera index");
  app.add_option("--init-quad", request.initQuad,
                 "x1,y1,x2,y2,x3,y3,x4,y4: the target is the first frame's region inside this quad (upper-left,\n"
                 "upper-right, lower-right, lower-left corners, frame pixels), tracked from there: how the POT and\n"
                 "TMT benchmarks start a tracker (instead of --target)")
      ->delimiter(',');
  app.add_option("--config", request.configPath, "YAML configuration (config/default.yaml lists every key)");
  app.add_option("--calib", request.calibrationPath,
                 "camera calibration file (OpenCV YAML/XML/JSON); default: the config's, else a 60 deg field of view");
  app.add_option("--out", request.outVideo,
                 "rendered output video (codec: config output.codec); with --no-render the input frames as they are");
  app.add_option("--poses", request.posesCsv,
                 "per-frame CSV: frame,state,ulx,uly,urx,ury,lrx,lry,llx,lly,rx,ry,rz,tx,ty,tz,inliers,reproj_px,ms");
  app.add_option("--report", request.reportJson, "JSON summary: rates, per-stage medians, accuracy, config used");
  app.add_flag("--no-render", request.noRender, "track only: no GL rendering");
  app.add_option("--async-delay-frames", request.asyncDelayFrames,
                 "apply each detection N frames after the frame it ran on (a detection worker's delay, replayed "
                 "deterministically; config tracking.async_delay_frames); 0: in its own frame")
      ->check(CLI::Range(0, 100));
  app.add_flag("--realtime", request.realtime,
               "the real detection worker (tracking.async_detection on), frames given at the input's frame rate "
               "as a camera would (the default replay is synchronous and deterministic)");
  app.add_option("--gt", request.groundTruth,
                 "ground-truth corners (gt.tsv: name ulx uly urx ury lrx lry llx lly per frame) for the accuracy");
  app.add_option("--frames", request.maxFrames, "stop after N frames")->check(CLI::PositiveNumber);
  app.add_option("--loop", request.loops, "play the input N times in a row (a soak test from a short video)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--progress", request.progressEvery, "progress line on stderr every N frames (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--synthetic-frames", request.synthetic.frames, "frames of the built-in synthetic sequence")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--synthetic-seed", request.synthetic.seed, "random seed of the built-in synthetic sequence")
      ->capture_default_str();
  std::vector<int> syntheticSize;
  app.add_option("--synthetic-size", syntheticSize, "WxH: frame size of the built-in synthetic sequence (default 640x480)")
      ->delimiter('x')
      ->expected(2)
      ->check(CLI::Range(64, 8192));
  app.add_option("--synthetic-target-fraction", request.synthetic.targetFraction,
                 "with a --synthetic-preset other than default: the target's share of the frame's area, seen\n"
                 "frontally from 0.45 m (e.g. 0.0625 = 1/16 of an HD frame)")
      ->check(CLI::Range(0.0, 1.0));
  std::string preset = "default";
  app.add_option("--synthetic-preset", preset,
                 "camera path of the built-in synthetic sequence: default, a POT challenge category or the\n"
                 "bent page (synthetic/synthetic_presets.h): " + nft::replay::syntheticPresetNames() +
                     "; with --synthetic-geometry a POT category or turn (default: turn)")
      ->check([](const std::string& name) {
        return nft::replay::parseSyntheticPreset(name) || name == "turn"
                   ? std::string()
                   : "expected one of " + nft::replay::syntheticPresetNames() + ", or with --synthetic-geometry turn";
      })
      ->capture_default_str();
  app.add_option("--synthetic-geometry", request.syntheticGeometry,
                 "the built-in sequence of a curved label instead: cylinder (graf1.png around a 3.3 cm can) or\n"
                 "cone (around a cup), in a cluttered scene, --synthetic-preset its motion (synthetic/curved_sequence.h)")
      ->check(CLI::IsMember({"cylinder", "cone"}));
  app.add_flag("--print-config", printConfig, "print the configuration in effect (YAML, every key) and exit");
  CLI11_PARSE(app, argc, argv);
  if (!targets.empty()) {
    request.target = targets.front();
    request.moreTargets.assign(targets.begin() + 1, targets.end());
  }
  if (!request.syntheticGeometry.empty()) {
    request.syntheticMotion = preset == "default" ? "turn" : preset;
  } else if (preset == "turn") {
    std::cerr << "nft_replay: --synthetic-preset turn is a curved label's motion: give --synthetic-geometry\n";
    return 2;
  } else {
    request.synthetic.preset = *nft::replay::parseSyntheticPreset(preset);
  }
  if (!syntheticSize.empty()) request.synthetic.frameSize = cv::Size(syntheticSize[0], syntheticSize[1]);

  if (printConfig) {
    try {
      // A Session checks what the pipeline can run and knows the warnings.
      const nft::Session session(nft::replay::sessionOptions(request.configPath, request.calibrationPath));
      std::cout << nft::config::toYaml(session.config());
      for (const std::string& w : session.warnings()) std::cerr << "nft_replay: warning: " << w << "\n";
    } catch (const std::exception& e) {
      std::cerr << "nft_replay: " << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  return nft::replay::runReplay(request);
}
