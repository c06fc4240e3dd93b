// nft_eval: evaluations of the pipeline on real data. `nft_eval descriptors` is the matching
// evaluation of seeds/000 section 5.2 (recall vs 1 − precision on the Oxford sequences) for
// SURF-ES, the CPU SURF lane and OpenCV's SIFT and ORB on the same keypoints; further
// evaluations (`tracking`) are meant to become sibling subcommands.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/eval/descriptor_eval.h"
#include "apps/eval/eval_report.h"
#include "apps/eval/extractor_spec.h"
#include "apps/eval/extractors.h"
#include "apps/eval/oxford_sequence.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"

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
                  ":auto|rgba8|float (storage), :pN (precision), :upright|:oriented, :64|:36, e.g.\n"
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
  cmd->add_option("--out", a.out, "CSV file for every curve and ratio-test result (see README)");
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nft_eval: evaluations of the NFT pipeline on real data (see README, 'Descriptor evaluation')."};
  app.require_subcommand(1);
  DescriptorsArgs descriptors;
  addDescriptorsCommand(app, descriptors);
  CLI11_PARSE(app, argc, argv);
  try {
    if (app.got_subcommand("descriptors")) return runDescriptors(descriptors);
  } catch (const std::exception& e) {
    std::cerr << "nft_eval: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
