// nft_eval: evaluations of the pipeline on real data. `nft_eval descriptors` is the matching
// evaluation of seeds/000 section 5.2 (recall vs 1 − precision on the Oxford sequences) for
// SURF-ES, the CPU SURF lane and OpenCV's SIFT and ORB on the same keypoints. `nft_eval tracking`
// runs our Tracker and the OpenCV ORB / SIFT baselines over a video with ground-truth corners
// (alignment error, success rate vs threshold); `nft_eval multi` several targets at once on the
// multi-target synthetic sequence, scored per target. `nft_eval suite run|collect` replays every (clip,
// config) pair of a suite file, here N at a time or as a Slurm job array, and tabulates the results;
// `nft_eval baseline` is a per-frame OpenCV baseline with nft_replay's inputs and outputs (what a
// suite runs beside our tracker).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "apps/eval/baseline_run.h"
#include "apps/eval/descriptor_eval.h"
#include "apps/eval/eval_report.h"
#include "apps/eval/extractor_spec.h"
#include "apps/eval/extractors.h"
#include "apps/eval/multi_target_eval.h"
#include "apps/eval/oxford_sequence.h"
#include "apps/eval/pot_eval.h"
#include "apps/eval/reference_track.h"
#include "apps/eval/curved_eval.h"
#include "apps/eval/tracking_eval.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "suite/suite_commands.h"
#include "synthetic/synthetic_presets.h"

using namespace nft::eval;

namespace {

/// What the `descriptors` subcommand was given.
struct DescriptorsArgs {
  std::vector<std::string> sequences;
  std::string extractors = "surf-es";
  std::string storage = "auto";
  std::string platform = "auto";
  std::string out;
  int precision = 0;
  bool upright = false;
  bool surf36 = false;
  EvalOptions options;
};

void addDescriptorsCommand(CLI::App& app, DescriptorsArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "descriptors",
      "Matching evaluation of seeds/000 section 5.2 on Oxford sequences: the strongest N scale-aware FAST\n"
      "keypoints of img1..img6, described by each extractor, matched img1 -> imgN by a distance threshold\n"
      "(every pair below t is a match; recall = correct / correspondences, 1-precision = false / all matches,\n"
      "swept over t) and by nearest neighbour with the ratio test. Correspondences: |H a - b| <= 2.5 px and\n"
      "region overlap error < 0.5 (circles of radius 10 s, a's mapped by the local affine approximation of H).\n"
      "Only the keypoints each extractor keeps and both images show are evaluated (ORB drops those within\n"
      "31 px of the border).");
  cmd->add_option("--sequence", a.sequences,
                  "Oxford sequence folder (img1..img6 .png/.ppm/.pgm, H1to2p..H1to6p); repeat for several")
      ->required();
  cmd->add_option("--extractor", a.extractors,
                  "comma-separated extractors: surf-es, surf-cpu, sift, orb, each with optional modifiers\n"
                  ":auto|rgba8|float (storage), :pN (precision), :taps1|:taps2|:lookups (surf-es box reads),\n"
                  ":upright|:oriented, :64|:36, e.g.\n"
                  "surf-es:rgba8:p10,surf-cpu,sift")
      ->capture_default_str();
  cmd->add_option("--storage", a.storage, "SURF-ES storage path for surf-es without a storage modifier")
      ->check(CLI::IsMember({"auto", "rgba8", "float"}))
      ->capture_default_str();
  cmd->add_option("--precision", a.precision,
                  "SURF-ES fragment precision p to emulate (e.g. 10 for a Mali-400); 0 = the GPU's")
      ->check(CLI::Range(0, 24))
      ->capture_default_str();
  cmd->add_flag("--upright", a.upright, "upright descriptors for extractors without :oriented (default: oriented)");
  cmd->add_flag("--surf36", a.surf36, "SURF-36 instead of SURF-64 for surf-es/surf-cpu without :64");
  cmd->add_option("--keypoints", a.options.keypoints, "strongest FAST keypoints per image")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--ratio", a.options.ratio, "nearest-neighbour ratio test: nearest < R * second nearest")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--steps", a.options.steps, "thresholds of each curve in the CSV, over [0, 2] (ORB: [0, 256] bits)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--distance", a.options.correspondence.maxDistancePx,
                  "correspondence: largest |H a - b|, pixels")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--overlap", a.options.correspondence.maxOverlapError,
                  "correspondence: overlap error must be below this; 1 = position only")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--out", a.out, "CSV file for every curve and ratio-test result (docs/programs/nft_eval.md)");
  cmd->add_option("--platform", a.platform, "EGL platform for surf-es: auto, surfaceless, device or default")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
}

int runDescriptors(const DescriptorsArgs& a) {
  ExtractorSpec defaults;
  defaults.storage = a.storage == "rgba8"   ? nft::detection::DescriptorStorage::Rgba8
                     : a.storage == "float" ? nft::detection::DescriptorStorage::Float
                                            : nft::detection::DescriptorStorage::Auto;
  defaults.precisionBits = a.precision;
  defaults.orientation = a.upright ? nft::detection::Orientation::Upright : nft::detection::Orientation::Oriented;
  defaults.type = a.surf36 ? nft::detection::DescriptorType::Surf36 : nft::detection::DescriptorType::Surf64;
  const std::vector<ExtractorSpec> specs = parseExtractorList(a.extractors, defaults);

  // Every input and the output folder are checked before the (slow) work starts, so a typo
  // fails at once.
  if (!a.out.empty()) {
    const std::filesystem::path folder = std::filesystem::path(a.out).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
      throw std::runtime_error("folder '" + folder.string() + "' of the results file '" + a.out + "' does not exist");
  }
  std::vector<OxfordSequence> sequences;
  for (const std::string& folder : a.sequences) sequences.push_back(loadOxfordSequence(folder));

  // One GL context for every SURF-ES extractor, made only when one is asked for.
  std::optional<nft::gpu::Context> context;
  nft::gpu::Capabilities caps;
  if (std::any_of(specs.begin(), specs.end(), [](const ExtractorSpec& s) { return s.kind == ExtractorKind::SurfEs; })) {
    nft::gpu::ContextOptions contextOptions;
    contextOptions.platform = nft::gpu::parseEglPlatform(a.platform);
    context.emplace(nft::gpu::Context::createHeadless(contextOptions));
    caps = nft::gpu::probeCapabilities();
  }

  std::vector<ExtractorResult> results;
  for (const OxfordSequence& seq : sequences) {
    const auto keypoints = detectKeypoints(seq, a.options.keypoints);
    cv::Size maxImage(0, 0);
    for (const cv::Mat& im : seq.images) maxImage = {std::max(maxImage.width, im.cols), std::max(maxImage.height, im.rows)};
    std::fprintf(stderr, "nft_eval: %s: %zu keypoints in img1 (%dx%d)\n", seq.name.c_str(), keypoints[0].size(),
                 seq.images[0].cols, seq.images[0].rows);
    for (const ExtractorSpec& spec : specs) {
      const std::unique_ptr<Extractor> extractor =
          makeExtractor(spec, maxImage, a.options.keypoints, context ? &caps : nullptr);
      results.push_back(evaluateExtractor(seq, keypoints, *extractor, a.options));
      const ExtractorResult& r = results.back();
      std::fprintf(stderr, "nft_eval: %s %s: described in %.2f s, mean recall at 1-precision %.2g: %.1f%%\n",
                   seq.name.c_str(), r.extractor.c_str(), r.describeSeconds, a.options.level,
                   100.0 * r.meanRecallAtLevel());
    }
  }
  if (!a.out.empty()) {
    writeResultsCsv(a.out, results, a.options.ratio);
    std::fprintf(stderr, "nft_eval: wrote %s\n", a.out.c_str());
  }
  printSummary(std::cout, results, a.options.level, a.options.ratio);
  return 0;
}

/// What the `tracking` subcommand was given.
struct TrackingArgs {
  TrackingRequest request;
  std::vector<int> size;  // --size WxH
  std::string baselines = "orb,sift";
  std::string curve;
  std::string subset;
  double maxThreshold = 20.0;
  double step = 0.5;
  /// --geometry: a curved target's sequence instead (apps/eval/curved_eval.h).
  std::string geometry;
  double radiusM = 0;
  double coverageDeg = 180;
  bool noPlanarModel = false;  // --no-planar-model: the curved model's run only
  bool baselinesGiven = false;
};

/// --threads, --progress and --platform of the runs over frames (tracking, multi).
void addRunOptions(CLI::App* cmd, int& threads, int& progressEvery, std::string& platform) {
  cmd->add_option("--threads", threads, "OpenCV threads during the run (0: OpenCV's default; 1: per-core times)")
      ->check(CLI::Range(0, 256))
      ->capture_default_str();
  cmd->add_option("--progress", progressEvery, "progress line on stderr every N frames (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--platform", platform, "EGL platform: auto, surfaceless, device or default")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
}

void addTrackingCommand(CLI::App& app, TrackingArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "tracking",
      "Tracking evaluation on a video with ground-truth corners (gt.tsv, ../shared/data/README.md): our Tracker\n"
      "(configured as nft_replay configures it) and the OpenCV baselines - ORB (1000 features, ratio 0.8) or\n"
      "SIFT (ratio 0.75), brute-force k=2 matching and findHomography RANSAC 3 px on every frame - on the same\n"
      "frames in one process. Alignment error e = sqrt(mean over the 4 corners of the squared distance); a frame\n"
      "without a result fails (e = inf). Beside it the visible error: the mean distance of a 10x10 grid of target\n"
      "points inside the frame. Prints success at 5 and 10 px, median error, success at 5 px and median by the\n"
      "visible error, tracked fraction and median ms per frame per method.");
  TrackingRequest& r = a.request;
  cmd->add_option("--target", r.target,
                  "target image (trained at start-up) or .nftm model; with --targets also the name of a\n"
                  "target of the database (the one scored)");
  cmd->add_option("--targets", r.targetDatabase,
                  "target database (.nftdb, nft_train --database) loaded first: recognition among all its\n"
                  "targets, --target scored");
  cmd->add_option("--video", r.video, "video file or folder of numbered frames");
  cmd->add_option("--gt", r.groundTruth, "ground-truth corners, gt.tsv format (header, then one line per frame)");
  cmd->add_option("--async-delay-frames", r.asyncDelayFrames,
                  "ours: apply each detection N frames after the frame it ran on (a detection worker's delay,\n"
                  "replayed deterministically; config tracking.async_delay_frames)")
      ->check(CLI::Range(0, 100));
  cmd->add_option("--preset", r.preset,
                  "instead of --target/--video/--gt: a synthetic sequence with exact ground truth, one of\n" +
                      nft::replay::syntheticPresetNames() +
                      " (POT categories and a bent page, synthetic/synthetic_presets.h); with --geometry one of\n" +
                      nft::replay::curvedMotionNames());
  cmd->add_option("--geometry", a.geometry,
                  "with --preset: a curved target instead, a label around a can (cylinder) or a cup (cone),\n"
                  "tracked with its curved and with a planar model; --preset also takes 'turn' (the label\n"
                  "turned about the axis out of view and back; synthetic/curved_sequence.h)")
      ->check(CLI::IsMember({"cylinder", "cone"}));
  cmd->add_flag("--no-planar-model", a.noPlanarModel,
                "with --geometry: track the label with its curved model only, not also as a flat print (about\n"
                "half the time; no curved / planar time ratio)");
  cmd->add_option("--radius-m", a.radiusM, "with --geometry cylinder: the radius, metres (default 0.033, a can; 0.04-0.10 a bottle)")
      ->check(CLI::Range(0.005, 1.0));
  cmd->add_option("--coverage-deg", a.coverageDeg, "with --geometry: the angle the label covers about the axis, degrees")
      ->check(CLI::Range(90.0, 360.0))
      ->capture_default_str();
  cmd->add_option("--synthetic-frames", r.syntheticFrames, "frames of the --preset sequence")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--size", a.size, "WxH: frame size of the --preset sequence, e.g. 1280x720 (default 640x480)")
      ->delimiter('x')
      ->expected(2)
      ->check(CLI::Range(64, 8192));
  cmd->add_option("--target-fraction", r.targetFraction,
                  "with --preset: the target's share of the frame's area, seen frontally from 0.45 m (e.g.\n"
                  "0.0625 = 1/16; default: the preset's own, about 1/6 at 640x480)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_flag("--init-quad", r.initQuad,
                "POT's start instead of --target: the target is the first frame's region inside its --gt quad,\n"
                "ours started there (Session::addTargetFromFrame), the baselines given it rectified; the first\n"
                "frame is not scored");
  cmd->add_option("--config", r.configPath, "YAML config for our tracker (config/default.yaml's keys)");
  cmd->add_option("--calib", r.calibrationPath, "camera calibration YAML (overrides the config's)");
  cmd->add_option("--baselines", a.baselines, "comma-separated OpenCV baselines: orb, sift, or none")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.baselinesGiven = true; });
  cmd->add_option("--out", r.perFrameCsv,
                  "per-frame CSV: frame,method,found,error_px,ms,ulx,uly,urx,ury,lrx,lry,llx,lly,visible_error_px\n"
                  "(frame from 1)");
  cmd->add_option("--curve", a.curve, "success-rate curve CSV: method,threshold_px,success_rate (scripts/plot_eval.py)");
  cmd->add_option("--max-threshold", a.maxThreshold, "largest threshold of the curve, px")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--step", a.step, "threshold step of the curve, px")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--frames", r.maxFrames, "evaluate only the first N frames")->check(CLI::PositiveNumber);
  cmd->add_option("--subset", a.subset,
                  "FIRST-LAST: also report frames FIRST..LAST (from 1, as gt.tsv names them) within 10 px,\n"
                  "e.g. 214-375 for tmt_bookI's far-tilted frames");
  addRunOptions(cmd, r.threads, r.progressEvery, r.platform);
}

/// "214-375" → {214, 375}; "" → {0, 0}. @throws std::invalid_argument naming the text.
std::pair<int, int> parseSubset(const std::string& text) {
  if (text.empty()) return {0, 0};
  int first = 0, last = 0;
  char dash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &first, &dash, &last, &extra) != 3 || dash != '-' || first < 1 ||
      last < first)
    throw std::invalid_argument("--subset '" + text + "': expected FIRST-LAST with 1 <= FIRST <= LAST, e.g. 214-375");
  return {first, last};
}

/// --preset P --geometry cylinder|cone: the curved target's run (apps/eval/curved_eval.h).
int runCurvedTracking(const TrackingArgs& a) {
  const TrackingRequest& r = a.request;
  if (r.preset.empty()) throw std::invalid_argument("--geometry is the --preset sequence's target: give --preset");
  const auto refuse = [](bool given, const std::string& option) {
    if (given) throw std::invalid_argument(option + " does not apply to a curved target's sequence (--geometry)");
  };
  refuse(!r.target.empty() || !r.video.empty() || !r.groundTruth.empty(), "--target/--video/--gt");
  refuse(!r.targetDatabase.empty(), "--targets");
  refuse(r.initQuad, "--init-quad");
  refuse(r.targetFraction > 0, "--target-fraction");
  refuse(!a.curve.empty(), "--curve");
  refuse(!a.subset.empty(), "--subset");
  refuse(r.asyncDelayFrames >= 0, "--async-delay-frames");
  refuse(!r.calibrationPath.empty(), "--calib (the sequence has its own camera)");
  refuse(a.baselinesGiven && a.baselines != "none", "--baselines (the OpenCV baselines find a homography)");
  if (a.radiusM > 0 && a.geometry == "cone")
    throw std::invalid_argument("--radius-m is a cylinder's: the cone is a cup of its own radii (4.5 and 3 cm)");
  CurvedTrackingRequest c;
  c.sequence.shape = a.geometry == "cone" ? nft::replay::CurvedShape::Cup : nft::replay::CurvedShape::Can;
  c.sequence.radiusM = a.radiusM;
  c.sequence.coverageDeg = a.coverageDeg;
  c.sequence.motion = r.preset;
  c.sequence.frames = r.syntheticFrames;
  c.sequence.frameSize = r.syntheticSize;
  c.configPath = r.configPath;
  c.planarModel = !a.noPlanarModel;
  c.maxFrames = r.maxFrames;
  c.progressEvery = r.progressEvery;
  c.threads = r.threads;
  c.platform = r.platform;
  c.perFrameCsv = r.perFrameCsv;
  const CurvedTrackingReport report = evaluateCurvedTracking(c);
  if (!c.perFrameCsv.empty()) std::fprintf(stderr, "nft_eval: wrote %s\n", c.perFrameCsv.c_str());
  printCurvedSummary(std::cout, report);
  return 0;
}

int runTracking(TrackingArgs& a) {
  if (!a.geometry.empty()) {
    if (!a.size.empty()) a.request.syntheticSize = cv::Size(a.size[0], a.size[1]);
    return runCurvedTracking(a);
  }
  if (a.radiusM > 0 || a.coverageDeg != 180 || a.noPlanarModel)
    throw std::invalid_argument("--radius-m, --coverage-deg and --no-planar-model are a curved target's: give --geometry");
  const bool files = !a.request.target.empty() || !a.request.video.empty() || !a.request.groundTruth.empty();
  if (a.request.initQuad && (a.request.preset.size() > 0 || !a.request.target.empty()))
    throw std::invalid_argument("--init-quad takes the target from --video's first frame and --gt: give no --target "
                                "or --preset");
  if (a.request.preset.empty()
          ? (a.request.target.empty() && !a.request.initQuad) || a.request.video.empty() || a.request.groundTruth.empty()
          : files)
    throw std::invalid_argument("give --target (or --init-quad), --video and --gt, or --preset alone");
  if (!a.size.empty()) {
    if (a.request.preset.empty()) throw std::invalid_argument("--size is the --preset sequence's frame size: give --preset");
    a.request.syntheticSize = cv::Size(a.size[0], a.size[1]);
  }
  if (a.request.targetFraction > 0 && a.request.preset.empty())
    throw std::invalid_argument("--target-fraction is the --preset sequence's target size: give --preset");
  a.request.baselines = parseBaselineList(a.baselines);
  const auto [subsetFirst, subsetLast] = parseSubset(a.subset);
  if (a.step > a.maxThreshold)
    throw std::invalid_argument("--step " + std::to_string(a.step) + " is larger than --max-threshold");
  if (!a.curve.empty()) {
    const std::filesystem::path folder = std::filesystem::path(a.curve).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
      throw std::runtime_error("folder '" + folder.string() + "' of the curve file '" + a.curve + "' does not exist");
  }
  const TrackingReport report = evaluateTracking(a.request);
  if (!a.request.perFrameCsv.empty()) std::fprintf(stderr, "nft_eval: wrote %s\n", a.request.perFrameCsv.c_str());
  if (!a.curve.empty()) {
    writeCurveCsv(a.curve, report, a.maxThreshold, a.step);
    std::fprintf(stderr, "nft_eval: wrote %s\n", a.curve.c_str());
  }
  printTrackingSummary(std::cout, report, subsetFirst, subsetLast);
  return 0;
}

/// Refuses an output file whose folder does not exist.
void checkWritableFolder(const std::string& file) {
  const std::filesystem::path folder = std::filesystem::path(file).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw std::runtime_error("folder '" + folder.string() + "' of '" + file + "' does not exist");
}

/// What the `pot` subcommand was given.
struct PotArgs {
  PotRequest request;
  std::string baselines = "orb,sift";
  std::string curve, report;
};

/// Adds `pot`: the POT benchmark's protocol over its sequences.
void addPotCommand(CLI::App& app, PotArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "pot",
      "The POT planar-tracking benchmark's protocol (Liang et al., ICRA 2018; POT-210 / POT-280): each sequence\n"
      "folder V<obj>_<cat> (frames, <name>_gt_points.txt: 8 numbers a frame, 8 zeros = not annotated;\n"
      "<name>_flag.txt: 0 normal, 1 occluded, 2 out of view, 3 blurred) is run from its first frame's quad by\n"
      "ours (an instant target) and the OpenCV baselines (that region rectified); frames annotated and not\n"
      "flagged are scored, the first excepted. Prints precision at 5 px per sequence, per category\n"
      "(1 scale ... 7 unconstrained, from the name) and over all: the mean of the sequences' precisions.");
  PotRequest& r = a.request;
  cmd->add_option("sequences", r.paths, "sequence folders, or folders of them")->required();
  cmd->add_option("--config", r.configPath, "YAML config for our tracker (config/default.yaml's keys)");
  cmd->add_option("--calib", r.calibrationPath, "camera calibration YAML (overrides the config's)");
  cmd->add_option("--baselines", a.baselines, "comma-separated OpenCV baselines: orb, sift, or none")
      ->capture_default_str();
  cmd->add_option("--orb-features", r.baselineOptions.orbFeatures,
                  "ORB features per frame (enough to see a target covering 1/16 of an HD frame)")
      ->check(CLI::Range(100, 100000))
      ->capture_default_str();
  cmd->add_option("--frames", r.maxFrames, "only the first N frames of each sequence")->check(CLI::PositiveNumber);
  cmd->add_option("--curve", a.curve, "precision curves 0-20 px, CSV: method,group,threshold_px,precision");
  cmd->add_option("--report", a.report, "JSON: per sequence and per group, every method");
  cmd->add_option("--out-dir", r.perFrameDir, "a per-frame CSV per sequence in this folder (<name>.csv)");
  addRunOptions(cmd, r.threads, r.progressEvery, r.platform);
}

int runPot(PotArgs& a) {
  a.request.baselines = parseBaselineList(a.baselines);
  for (const std::string& file : {a.curve, a.report}) checkWritableFolder(file);
  const PotReport report = evaluatePot(a.request);
  if (!a.curve.empty()) {
    writePotCurves(a.curve, report);
    std::fprintf(stderr, "nft_eval: wrote %s\n", a.curve.c_str());
  }
  if (!a.report.empty()) {
    writePotJson(a.report, report);
    std::fprintf(stderr, "nft_eval: wrote %s\n", a.report.c_str());
  }
  printPotSummary(std::cout, report);
  return 0;
}

/// Adds `reference`: a reference track of a real clip (per-frame SIFT refined by masked ECC).
void addReferenceCommand(CLI::App& app, ReferenceRequest& r) {
  CLI::App* cmd = app.add_subcommand(
      "reference",
      "A reference track for a real clip without ground truth: per-frame OpenCV SIFT (ratio 0.75, RANSAC 3 px)\n"
      "where it finds the target with --min-inliers, refined by OpenCV's dense ECC alignment (findTransformECC,\n"
      "homography) masked to the target's quad; written as gt.tsv, frames without a reference as nan, for\n"
      "`nft_eval tracking --gt`.");
  cmd->add_option("--video", r.video, "video file or frames folder")->required();
  cmd->add_option("--target", r.target, "the target image")->required();
  cmd->add_option("--out", r.out, "gt.tsv to write")->required();
  cmd->add_option("--min-inliers", r.minInliers, "SIFT's RANSAC inliers for a frame to have a reference")
      ->check(CLI::Range(4, 100000))
      ->capture_default_str();
  cmd->add_option("--min-correlation", r.minCorrelation, "ECC's correlation coefficient for a frame to have one")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--max-shift", r.maxShiftPx, "largest corner move of ECC from SIFT's homography, pixels")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--frames", r.maxFrames, "only the first N frames")->check(CLI::PositiveNumber);
  cmd->add_option("--progress", r.progressEvery, "progress line on stderr every N frames (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

int runReference(const ReferenceRequest& r) {
  checkWritableFolder(r.out);
  const ReferenceReport report = makeReferenceTrack(r);
  std::printf("nft_eval: reference %s: %d frames, SIFT with >= %d inliers on %d, referenced %d (ECC correlation >= "
              "%.2f, within %.1f px of SIFT)\n",
              r.out.c_str(), report.frames, r.minInliers, report.sift, report.referenced, r.minCorrelation, r.maxShiftPx);
  return 0;
}

/// Adds `multi`: several targets at once on the multi-target synthetic sequence.
void addMultiCommand(CLI::App& app, MultiTargetRequest& r) {
  CLI::App* cmd = app.add_subcommand(
      "multi",
      "Several targets at once: the multi-target synthetic sequence (opencv-doc's images printed on a table, exact\n"
      "corners and visibility; layout pan: 4 prints entering and leaving the view, one lying over another; grid: 8\n"
      "prints all in view) through one Session that knows every print, or --alone one Session per print. Scored\n"
      "per print over the frames where at least --min-visible of it shows; every detection right or wrong.");
  cmd->add_option("--layout", r.layout, "pan or grid")->check(CLI::IsMember({"pan", "grid"}))->capture_default_str();
  cmd->add_option("--frames", r.frames, "frames of the sequence (30 frames/s)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--targets", r.targetDatabase, "target database of distractors (.nftdb) loaded before the prints");
  cmd->add_flag("--alone", r.alone, "one Session per print: the single-target reference");
  cmd->add_option("--config", r.configPath, "YAML config (config/default.yaml's keys)");
  cmd->add_option("--calib", r.calibrationPath, "camera calibration YAML (overrides the config's)");
  cmd->add_option("--min-visible", r.minVisible, "visible fraction from which a print's frame is scored")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--out", r.perFrameCsv, "per-frame CSV: frame,target,visible,state,found,error_px (frame from 1)");
  addRunOptions(cmd, r.threads, r.progressEvery, r.platform);
}

int runMulti(const MultiTargetRequest& r) {
  const MultiTargetReport report = evaluateMultiTarget(r);
  if (!r.perFrameCsv.empty()) std::fprintf(stderr, "nft_eval: wrote %s\n", r.perFrameCsv.c_str());
  printMultiTargetSummary(std::cout, report);
  return 0;
}

/// What the `suite` subcommands were given.
struct SuiteArgs {
  nft::eval::suite::SuiteRunRequest run;
  std::string partition, time, mem;
  int cpusPerTask = 0, maxParallel = -1, maxArraySize = 0;
  std::string collectDir;
  std::string taskPlan;
  int taskIndex = -1;
  bool taskForce = false;
  CLI::App* runCommand = nullptr;
  CLI::App* collectCommand = nullptr;
  CLI::App* taskCommand = nullptr;
};

/// Adds `suite run`, `suite collect` and the internal `suite task` (what a Slurm array task runs).
void addSuiteCommand(CLI::App& app, SuiteArgs& a) {
  CLI::App* suite = app.add_subcommand(
      "suite",
      "Regression suites and parameter sweeps: every (clip, config) pair of a suite file replayed by nft_replay,\n"
      "on this machine or as a Slurm job array, then collected into one table (docs/programs/nft_eval_suite.md).");
  suite->require_subcommand(1);
  nft::eval::suite::SuiteRunRequest& r = a.run;
  CLI::App* run = suite->add_subcommand(
      "run",
      "Replays every unfinished pair of SUITE.yaml into --out DIR (finished pairs are skipped, so a rerun resumes;\n"
      "a failed pair is recorded and run again next time). With --slurm, submits them as one Slurm job array\n"
      "(sbatch --array, one task per pair) and prints its job id.");
  run->add_option("suite", r.suiteFile, "suite file (YAML: clips, sweep; docs/programs/nft_eval_suite.md)")->required();
  run->add_option("--out", r.outDir, "output folder (created; on a shared filesystem for --slurm)")->required();
  run->add_option("--jobs", r.jobs, "replays at a time on this machine")->check(CLI::Range(1, 1024))->capture_default_str();
  run->add_option("--replay", r.replayBinary, "the nft_replay program (default: the one beside nft_eval)");
  run->add_flag("--force", r.force, "run finished pairs again");
  run->add_flag("--slurm", r.slurm, "submit a Slurm job array instead of running here");
  run->add_option("--partition", a.partition, "--slurm: partition (default: the suite's slurm.partition, else Slurm's)");
  run->add_option("--time", a.time, "--slurm: time limit per task, e.g. 00:30:00");
  run->add_option("--mem", a.mem, "--slurm: memory per task, e.g. 2G");
  run->add_option("--cpus-per-task", a.cpusPerTask, "--slurm: CPUs per task (the replay's threads)")
      ->check(CLI::Range(1, 1024));
  run->add_option("--max-parallel", a.maxParallel, "--slurm: tasks running at once (--array=...%N); 0: no limit")
      ->check(CLI::Range(0, 1000000));
  run->add_option("--max-array-size", a.maxArraySize,
                  "--slurm: tasks per array (below the cluster's MaxArraySize); more pairs: several arrays")
      ->check(CLI::Range(1, 4000000));
  run->add_option("--sbatch-arg", r.sbatchArgs, "--slurm: one more sbatch option, e.g. --sbatch-arg=--account=vision");
  run->add_option("--sbatch", r.sbatch, "--slurm: the sbatch program")->capture_default_str();
  a.runCommand = run;
  CLI::App* collect = suite->add_subcommand(
      "collect",
      "Aggregates whatever pairs of DIR have finished: DIR/results.csv, results.json, results.md (a table per\n"
      "config: success at 5 / 10 px, found, median error, tracker fps, per clip and overall) and DIR/plots/*.png.\n"
      "Lists the missing and failed pairs; exit status 2 while some are.");
  collect->add_option("dir", a.collectDir, "the --out folder of `suite run`")->required();
  a.collectCommand = collect;
  CLI::App* task = suite->add_subcommand("task", "Runs one pair of a plan (what a Slurm array task runs).");
  task->group("");  // internal: not listed in --help
  task->add_option("plan", a.taskPlan, "plan.json of a submission")->required();
  task->add_option("index", a.taskIndex, "pair index in the plan")->required();
  task->add_flag("--force", a.taskForce, "run the pair even when it is finished");
  a.taskCommand = task;
}

/// What the `baseline` subcommand was given.
struct BaselineArgs {
  BaselineRunRequest request;
  std::string method = "sift";
  std::vector<int> size;
};

/// Adds `baseline`: one per-frame OpenCV baseline with nft_replay's inputs and outputs.
void addBaselineCommand(CLI::App& app, BaselineArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "baseline",
      "A per-frame OpenCV baseline - SIFT (ratio 0.75) or ORB (1000 features, ratio 0.8), brute-force k=2\n"
      "matching and findHomography RANSAC 3 px on every frame, no tracking - over a video or a synthetic\n"
      "sequence, with nft_replay's flags and outputs: a per-frame pose CSV and a JSON report with its\n"
      "statistics (and with ground truth the accuracy). What `nft_eval suite` runs for a suite's 'baselines'.\n"
      "--every N runs only frames 0, N, 2N, ...; the others are written as 'skipped' and not scored.");
  BaselineRunRequest& r = a.request;
  cmd->add_option("--method", a.method, "sift or orb")->check(CLI::IsMember({"sift", "orb"}))->capture_default_str();
  cmd->add_option("--every", r.every, "run one frame in N (frames 0, N, 2N, ...)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--target", r.target, "target image, or .nftm model (its working image)");
  cmd->add_option("--video", r.video, "video file or folder of numbered frames");
  cmd->add_option("--gt", r.groundTruth, "ground-truth corners (gt.tsv) for the accuracy");
  cmd->add_option("--frames", r.maxFrames, "read only the first N frames")->check(CLI::PositiveNumber);
  cmd->add_option("--synthetic-preset", r.preset,
                  "instead of --target/--video/--gt: nft_replay's synthetic sequence with this preset, one of\n" +
                      nft::replay::syntheticPresetNames());
  cmd->add_option("--synthetic-size", a.size, "WxH: frame size of the synthetic sequence (default 640x480)")
      ->delimiter('x')
      ->expected(2)
      ->check(CLI::Range(64, 8192));
  cmd->add_option("--synthetic-target-fraction", r.targetFraction,
                  "the synthetic target's share of the frame's area (as nft_replay's)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--synthetic-frames", r.syntheticFrames, "frames of the synthetic sequence")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--poses", r.posesCsv,
                  "per-frame CSV (nft_replay's header; state detecting when found, lost, or skipped; no pose)");
  cmd->add_option("--report", r.reportJson, "JSON report: nft_replay's statistics and accuracy, method, every");
  cmd->add_option("--threads", r.threads, "OpenCV threads (0: OpenCV's default)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--progress", r.progressEvery, "progress line on stderr every N frames run (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

int runBaselineCommand(BaselineArgs& a) {
  a.request.kind = parseBaselineList(a.method).front();
  if (!a.size.empty()) a.request.syntheticSize = cv::Size(a.size[0], a.size[1]);
  const nlohmann::json report = runBaseline(a.request);
  std::cout << "nft_eval: " << baselineSummary(report) << "\n";
  return 0;
}

/// Runs the `suite` subcommand given (suite/suite_commands.h); its exit status.
int runSuite(SuiteArgs& a) {
  namespace suite = nft::eval::suite;
  if (a.runCommand->parsed()) {
    suite::SuiteRunRequest& r = a.run;
    if (!a.partition.empty()) r.partition = a.partition;
    if (!a.time.empty()) r.time = a.time;
    if (!a.mem.empty()) r.mem = a.mem;
    if (a.cpusPerTask > 0) r.cpusPerTask = a.cpusPerTask;
    if (a.maxParallel >= 0) r.maxParallel = a.maxParallel;
    if (a.maxArraySize > 0) r.maxArraySize = a.maxArraySize;
    return suite::suiteRun(r, std::cout, std::cerr);
  }
  if (a.collectCommand->parsed()) return suite::suiteCollect(a.collectDir, std::cout, std::cerr);
  return suite::suiteTask(a.taskPlan, a.taskIndex, a.taskForce, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nft_eval: evaluations of the NFT pipeline on real data (the guide: docs/programs/nft_eval.md)."};
  app.require_subcommand(1);
  DescriptorsArgs descriptors;
  addDescriptorsCommand(app, descriptors);
  TrackingArgs tracking;
  addTrackingCommand(app, tracking);
  MultiTargetRequest multi;
  addMultiCommand(app, multi);
  SuiteArgs suite;
  addSuiteCommand(app, suite);
  PotArgs pot;
  addPotCommand(app, pot);
  ReferenceRequest reference;
  addReferenceCommand(app, reference);
  BaselineArgs baseline;
  addBaselineCommand(app, baseline);
  CLI11_PARSE(app, argc, argv);
  try {
    if (app.got_subcommand("descriptors")) return runDescriptors(descriptors);
    if (app.got_subcommand("tracking")) return runTracking(tracking);
    if (app.got_subcommand("multi")) return runMulti(multi);
    if (app.got_subcommand("suite")) return runSuite(suite);
    if (app.got_subcommand("pot")) return runPot(pot);
    if (app.got_subcommand("reference")) return runReference(reference);
    if (app.got_subcommand("baseline")) return runBaselineCommand(baseline);
  } catch (const std::exception& e) {
    std::cerr << "nft_eval: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
