#pragma once
// The suite file of `nft_eval suite run` (docs/programs/nft_eval_suite.md): the clips to
// replay and the configs to replay them with, a grid of config keys × values or named configs,
// loaded and checked completely before anything runs. Every config is validated by the config
// schema (config/config.h); an error names the suite file and the line of the offending entry:
//
//   sweep.yaml:14: sweep.grid: tracking.min_ncc = 1.5: expected a number in [-1, 1]
//   sweep.yaml:5: clips[1].video '/data/b.mp4': no such file or folder
//
// Format (every path relative to the suite file's folder, or absolute):
//
//   name: tmt-sweep              # optional; default: the file name without .yaml
//   base_config: base.yaml       # optional: a config file under every config of the sweep
//   clips:
//     - name: bookI              # optional; default: the video's name; unique
//       video: data/video.mp4    # video file or folder of frames
//       target: data/target.png  # whatever nft_replay --target takes: an image or a .nftm model
//       ground_truth: data/gt.tsv  # optional (gt.tsv format)
//       calibration: cam.yaml    # optional (nft_replay --calib)
//       frames: [100, 199]       # optional: first and last frame, from 0, inclusive; or N: the first N
//     - name: hd_blur            # optional; default: <preset>-<W>x<H>, e.g. motion_blur-1280x720
//       preset: motion_blur      # instead of video/target/ground_truth: a synthetic sequence with
//                                # exact ground truth (nft_replay --synthetic-preset; synthetic_presets.h)
//       size: 1280x720           # optional (default 640x480): --synthetic-size
//       target_fraction: 0.0625  # optional: --synthetic-target-fraction (a POT preset or bent_page)
//       frames: 300              # optional (default 300): N, the sequence's length
//       baselines: false         # optional (default true): run the suite's baselines on this clip
//   sweep:                       # optional (default: one config, the defaults); grid or configs
//     grid:                      # every combination of the values, keys in the order written
//       tracking.min_ncc: [0.7, 0.8]
//       ransac.threshold_px: [3, 5]
//     configs:                   # or named configs: an inline map, a config file, or null
//       default: null
//       strict: {tracking: {min_ncc: 0.85}}
//       phone: ../config/profiles/phone.yaml
//   baselines:                   # optional: per-frame OpenCV baselines (nft_eval baseline) beside
//     sift: {every: 10}          # the configs, a row per clip each; every: one frame in N (default 1)
//     orb: null                  # (a clip with `baselines: false` gets none)
//   replay:
//     render: false              # default false: tracking only (nft_replay --no-render)
//   slurm:                       # defaults of `--slurm` (flags override)
//     partition: batch
//     time: "00:30:00"
//     mem: 2G
//     cpus_per_task: 1
//     max_parallel: 0            # array throttle (sbatch --array=...%N); 0 = none
//     max_array_size: 1000       # tasks per array (the cluster's MaxArraySize - 1); more: several arrays
//     sbatch_args: ["--account=vision"]

#include <map>
#include <string>
#include <vector>

namespace nft::eval::suite {

/// One clip: what nft_replay replays. Paths are absolute.
struct ClipSpec {
  std::string name;         ///< unique within the suite; [A-Za-z0-9._-] (others become '_')
  std::string video;        ///< video file or folder of frames
  std::string target;       ///< what nft_replay --target takes: a target image or a .nftm model (a file)
  std::string groundTruth;  ///< gt.tsv, or "" (no accuracy)
  std::string calibration;  ///< camera calibration file, or "" (the config's)
  int firstFrame = 0;       ///< first frame replayed, from 0
  int lastFrame = -1;       ///< last frame replayed (inclusive), or -1: to the end
  int line = 0;             ///< line of the clip's entry in the suite file (1-based)
  /// A synthetic sequence instead of a video: its preset's name (synthetic/synthetic_presets.h,
  /// nft_replay --synthetic-preset), "" for a video clip. video, target, groundTruth and
  /// calibration are then empty: the sequence brings its frames, target, camera and exact ground
  /// truth; firstFrame is 0 and lastFrame + 1 its length.
  std::string preset;
  int width = 640, height = 480;  ///< the synthetic sequence's frame size (--synthetic-size)
  /// > 0: its target's share of the frame's area (--synthetic-target-fraction); 0: the preset's own.
  double targetFraction = 0;
  /// Whether the suite's baselines (SuiteSpec::baselines) run on this clip (`baselines: false`:
  /// only the configs).
  bool baselines = true;

  /// Everything that decides the clip's results, as one text (part of the pair's hash).
  std::string identity() const;
};

/// One config of the sweep, validated.
struct ConfigSpec {
  std::string name;  ///< "default", a named config's name, or the grid values "key=value key=value"
  /// For a grid: each swept key and its value as written in the suite file (for the tables).
  std::map<std::string, std::string> params;
  std::string yaml;  ///< the complete config (nft::config::toYaml), what the replay gets
  std::string hash;  ///< stableHash(yaml): configs equal in effect have the same hash
  int line = 0;      ///< line of its entry in the suite file (0 for the implicit default)
};

/// A per-frame OpenCV baseline run beside the configs: `nft_eval baseline --method M --every N`
/// on each clip, tabulated as a config named after its method.
struct BaselineSpec {
  std::string method;  ///< "sift" or "orb" (apps/eval/feature_baseline.h)
  int every = 1;       ///< run one frame in N (frames 0, N, 2N, ...); the others are not scored
  int line = 0;        ///< line of its entry in the suite file
  /// What decides its results, as one text (part of its pairs' hashes): "baseline=M\nevery=N\n".
  std::string identity() const;
  /// Its config hash in the tables: stableHash(identity()).
  std::string hash() const;
};

/// Slurm resources of `--slurm`. Empty strings / 0: sbatch's (the cluster's) default.
struct SlurmSpec {
  std::string partition;
  std::string time;  ///< time limit per task, sbatch --time format ("00:30:00", "30")
  std::string mem;   ///< memory per task, sbatch --mem format ("2G", "500M")
  int cpusPerTask = 1;
  int maxParallel = 0;      ///< tasks running at once (sbatch --array=...%N); 0: no limit
  int maxArraySize = 1000;  ///< tasks per array; a larger sweep is split into several arrays
  std::vector<std::string> extraArgs;  ///< more sbatch options, passed as they are
};

/// A loaded, checked suite.
struct SuiteSpec {
  std::string name;    ///< identifies the suite's output folder
  std::string source;  ///< the suite file, absolute
  std::vector<ClipSpec> clips;
  std::vector<ConfigSpec> configs;
  std::vector<std::string> sweptKeys;  ///< the grid's keys in order (empty for named configs)
  std::vector<BaselineSpec> baselines;  ///< in the suite's order; none by default
  bool render = false;                 ///< render as well as track (nft_replay without --no-render)
  SlurmSpec slurm;
};

/// Loads and checks a suite file: its YAML, every key (unknown keys refused, with the line),
/// that every clip's files exist, frame ranges, and every config through the config schema.
/// @throws std::runtime_error "<file>:<line>: <entry>: <what was expected>" (the file alone when
///   it cannot be read or is not YAML, with yaml-cpp's line and column).
SuiteSpec loadSuite(const std::string& path);

}  // namespace nft::eval::suite
