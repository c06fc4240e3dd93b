// nft_train: trains a target once — keypoints and SURF descriptors over several scales, the
// patches the tracking lane follows, the physical size — writes the model file and prints the
// target's quality report. With --database: trains every image of a folder or a list file as the
// Session trains images (the config's settings) and writes one target database (.nftdb) with the
// visual words that recognise them, a quality line per target and a warning for look-alikes.

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "apps/train/database_input.h"
#include "apps/train/geometry_arguments.h"
#include "apps/train/target_picture.h"
#include "config/config.h"
#include "detection/surf_cpu.h"
#include "detection/target_database.h"
#include "detection/surf_es.h"
#include "detection/target_model_io.h"
#include "detection/target_trainer.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "session/pipeline_options.h"
#include "session/target_loader.h"

using namespace nft::detection;

namespace {

void printReport(const std::string& imagePath, const cv::Mat& original, const TargetModel& model,
                 const std::string& outPath, double seconds) {
  const TargetQuality& q = model.quality;
  std::printf("Target:     %s (%dx%d, trained at %dx%d, %.3f m wide)\n", imagePath.c_str(), original.cols,
              original.rows, model.image.cols, model.image.rows, model.widthMetres);
  const nft::detection::TargetGeometry& g = model.geometry;
  if (g.kind == nft::detection::GeometryKind::Cylinder)
    std::printf("Geometry:   cylinder, radius %.4f m, the label %.3f m high around %.0f degrees\n", g.radiusM,
                nft::detection::labelHeightMetres(model.widthMetres, model.image.size()),
                model.widthMetres / g.radiusM * 180.0 / 3.14159265358979323846);
  else if (g.kind == nft::detection::GeometryKind::Cone)
    std::printf("Geometry:   cone, radius %.4f m at the top, %.4f m at the bottom, slant %.4f m, %s label\n",
                g.topRadiusM, g.bottomRadiusM, g.sideLengthM, nft::detection::toString(g.coneLabel).c_str());
  else
    std::printf("Geometry:   planar\n");
  std::printf("Keypoints:  %d (SURF-%d, %s)\n", q.keypointCount, descriptorLength(model.descriptorType),
              model.orientation == Orientation::Oriented ? "oriented" : "upright");
  std::printf("Patches:    %zu for the tracking lane\n", model.patches.size());
  std::printf("Coverage:   %.0f%% of the target\n", 100.0 * q.coverage);
  std::printf("Distinct:   %.0f%% of keypoints\n", 100.0 * q.distinctness);
  std::printf("Contrast:   %.1f\n", q.meanContrast);
  std::string stars;
  for (int i = 0; i < 5; ++i) stars += i < q.stars ? "*" : ".";
  std::printf("Quality:    %s (%d/5)\n", stars.c_str(), q.stars);
  if (q.warnings.empty()) std::printf("Warnings:   none\n");
  for (const std::string& w : q.warnings) std::printf("Warning:    %s\n", w.c_str());
  std::printf("Wrote %s (%.1f KB) in %.2f s\n", outPath.c_str(),
              static_cast<double>(std::filesystem::file_size(outPath)) / 1024.0, seconds);
}

/// nft_train --database: trains the entries, builds the vocabulary, writes the database.
/// `keypoints` and `viewTilt` (when set) override the config's for every target: a database-wide
/// budget, e.g. for a catalogue of 1000 prints an app ships (docs/programs/nft_train.md).
int trainDatabase(const std::vector<nft::train::TargetEntry>& entries, const std::string& outPath,
                  const std::string& configPath, double defaultWidth, const std::string& platform, double lookAlike,
                  std::optional<int> keypoints, std::optional<double> viewTilt,
                  const nft::detection::TargetDatabaseSaveOptions& saveOptions) {
  const auto start = std::chrono::steady_clock::now();
  const nft::config::Config config = configPath.empty() ? nft::config::Config{} : nft::config::loadConfig(configPath);
  nft::session::PipelineOptions options =
      nft::session::pipelineOptions(config, configPath.empty() ? "<defaults>" : configPath);
  if (keypoints) options.training.detector.maxKeypoints = *keypoints;
  if (viewTilt) options.training.viewTiltDeg = *viewTilt;
  nft::gpu::ContextOptions contextOptions;
  contextOptions.platform = nft::gpu::parseEglPlatform(platform);
  const nft::gpu::Context context = nft::gpu::Context::createHeadless(contextOptions);
  const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
  std::vector<std::pair<std::string, TargetModel>> models;
  for (size_t i = 0; i < entries.size(); ++i) {
    const nft::train::TargetEntry& e = entries[i];
    nft::session::PipelineOptions o = options;
    o.training.widthMetres = e.widthMetres > 0 ? e.widthMetres : defaultWidth;
    if (!std::filesystem::is_regular_file(e.image))
      throw std::runtime_error("target '" + e.name + "': image '" + e.image + "' does not exist");
    const cv::Mat image = cv::imread(e.image, cv::IMREAD_GRAYSCALE);
    if (image.empty()) throw std::runtime_error("target '" + e.name + "': cannot read image '" + e.image + "'");
    try {
      o.training.geometry = nft::train::geometryOf(e.geometry, image.size(), o.training.widthMetres, e.widthMetres > 0);
    } catch (const std::invalid_argument& error) {
      throw std::runtime_error(e.origin + ": target '" + e.name + "': " + error.what());
    }
    nft::session::LoadedTarget t = nft::session::trainTargetImage(image, e.image, o, caps);  // names the image in errors
    const TargetQuality& q = t.model.quality;
    std::string stars;
    for (int s = 0; s < 5; ++s) stars += s < q.stars ? "*" : ".";
    const std::string shape =
        t.model.geometry.curved() ? ", " + nft::detection::toString(t.model.geometry.kind) : std::string();
    std::printf("[%zu/%zu] %s: %zu keypoints, %zu patches%s, %s%s%s\n", i + 1, entries.size(), e.name.c_str(),
                t.model.keypoints.size(), t.model.patches.size(), shape.c_str(), stars.c_str(),
                q.warnings.empty() ? "" : "; ", q.warnings.empty() ? "" : q.warnings.front().c_str());
    std::fflush(stdout);
    models.emplace_back(e.name, std::move(t.model));
  }
  const TargetDatabase database = TargetDatabase::build(std::move(models));
  for (const auto& [a, b, similarity] : database.lookAlikes(lookAlike))
    std::printf("Warning:    '%s' looks like '%s' (visual-word similarity %.2f): the tracker may take one for the "
                "other\n", a.c_str(), b.c_str(), similarity);
  database.save(outPath, saveOptions);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("Wrote %s: %d targets, %d visual words, %.1f MB in %.1f s\n", outPath.c_str(), database.size(),
              database.vocabulary().size(), static_cast<double>(std::filesystem::file_size(outPath)) / 1e6, seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nft_train: train a target (a flat print, or a label on a cylinder or cone) for the tracker and rate it.\n"
               "Writes one model file (.nftm) with the keypoints and SURF descriptors over several scales, the\n"
               "tracking patches and the target's physical width, then prints a quality report (0-5 stars)."};
  std::string imagePath, outPath, extractor = "surfes", platform = "auto";
  TargetTrainerOptions options;
  int descriptor = 64;
  bool upright = false;
  std::string databasePath, folder, listFile, configPath;
  double lookAlike = 0.8;
  app.add_option("target", imagePath, "target image: a photo or scan of the planar target");
  app.add_option("-o,--out", outPath, "model file to write (.nftm)");
  std::string picturePath;
  app.add_option("--picture", picturePath,
                 "also write a picture of the trained target (PNG or JPEG): its keypoints (yellow; the simulated\n"
                 "views' cyan), tracking patches (green) and the parts too plain to track (red)");
  app.add_option("--database", databasePath,
                 "write a target database (.nftdb) of every image of --folder or --list, trained as the Session trains "
                 "images (the --config's settings)");
  app.add_option("--folder", folder, "with --database: every image of this folder, named by its file name");
  app.add_option("--list", listFile,
                 "with --database: a list file, one 'name image [width_m] [key=value ...]' per line; the keys\n"
                 "give a curved label's surface: geometry=cylinder radius_m=0.033 (docs/programs/nft_train.md)");
  app.add_option("--config", configPath, "with --database: the YAML config whose training settings are used");
  nft::detection::TargetDatabaseSaveOptions saveOptions;
  app.add_option("--image-quality", saveOptions.imageQuality,
                 "with --database: how the targets' images are stored, 1-100 JPEG quality or 0 for PNG (lossless)")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--tilted-keypoints", saveOptions.maxTiltedKeypoints,
                 "with --database: the most tilted-view keypoints stored a target, the strongest (-1: all)")
      ->check(CLI::Range(-1, 1000000))
      ->capture_default_str();
  app.add_option("--look-alike", lookAlike, "with --database: warn about targets at least this similar (0-1)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  CLI::Option* width = app.add_option("--width-m", options.widthMetres,
                                      "physical width of the target, metres (a curved target's: the label's width)")
                           ->check(CLI::PositiveNumber)
                           ->capture_default_str();
  nft::train::GeometryArguments geometry;
  CLI::Option* geometryKind =
      app.add_option("--geometry", geometry.kind,
                     "the surface the target is printed on: planar, cylinder (a label around a can or bottle: the image\n"
                     "is the label unrolled, its width the arc length) or cone (a sleeve on a cup)")
          ->capture_default_str();
  const std::vector<std::pair<std::optional<double>*, std::pair<const char*, const char*>>> sizes = {
      {&geometry.radius, {"--radius-m", "cylinder: its radius, metres"}},
      {&geometry.height, {"--height-m", "cylinder or cone: the label's height (along the axis or the slant), metres;\n"
                                        "sets --width-m from the image's aspect"}},
      {&geometry.topRadius, {"--top-radius-m", "cone: the radius at the label's top edge, metres (0: the apex)"}},
      {&geometry.bottomRadius, {"--bottom-radius-m", "cone: the radius at the label's bottom edge, metres"}},
      {&geometry.sideLength, {"--side-length-m", "cone: the label's length along the slant, metres"}}};
  std::vector<CLI::Option*> geometryOptions{geometryKind};
  for (const auto& [value, text] : sizes) geometryOptions.push_back(app.add_option(text.first, *value, text.second));
  geometryOptions.push_back(app.add_option("--cone-label", geometry.coneLabel,
                                           "cone: the label image is the unrolled sector as printed (sector) or a "
                                           "rectangle\nwhose width is the bottom edge's arc length (rectangle)")
                                ->capture_default_str());
  app.add_option("--working-size", options.workingSize, "longest side the target is scaled down to, pixels")
      ->check(CLI::Range(64, 4096))
      ->capture_default_str();
  app.add_option("--min-size", options.minDetectedSidePx,
                 "smallest size (longest side, frame pixels) the target is to be detected at: training covers\n"
                 "the scales down to it (0: the detector's levels only)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  CLI::Option* viewTilt = app.add_option("--view-tilt", options.viewTiltDeg,
                 "degrees: also train four views of the target this far off its normal (steep tilts; 0: off);\n"
                 "with --database: for every target, instead of the config's target.view_tilt_deg")
      ->check(CLI::Range(0.0, 79.9))
      ->capture_default_str();
  CLI::Option* keypoints = app.add_option("--keypoints", options.detector.maxKeypoints,
                                          "most keypoints to keep; with --database: for every target (default 1000)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--descriptor", descriptor, "64 (SURF-64) or 36 (SURF-36)")
      ->check(CLI::IsMember({64, 36}))
      ->capture_default_str();
  app.add_flag("--upright", upright, "upright descriptors (only where the camera never rolls)");
  app.add_option("--extractor", extractor, "surfes (GPU) or cpu: both compute the same descriptor")
      ->check(CLI::IsMember({"surfes", "cpu"}))
      ->capture_default_str();
  app.add_option("--platform", platform, "EGL platform for surfes: auto, surfaceless, device or default")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    if (!databasePath.empty()) {
      if (folder.empty() == listFile.empty()) throw std::runtime_error("--database needs --folder or --list (one of them)");
      if (!imagePath.empty() || !outPath.empty() || !picturePath.empty())
        throw std::runtime_error("--database writes one database: give no target image, --out or --picture");
      for (const CLI::Option* o : geometryOptions)
        if (o->count() > 0)
          throw std::runtime_error(o->get_name() +
                                   " is for one target: with --database give each target's geometry on its line of "
                                   "the --list file (e.g. 'can can.png 0.207 geometry=cylinder radius_m=0.033')");
      return trainDatabase(folder.empty() ? nft::train::entriesOfList(listFile) : nft::train::entriesOfFolder(folder),
                           databasePath, configPath, options.widthMetres, platform, lookAlike,
                           keypoints->count() ? std::optional<int>(options.detector.maxKeypoints) : std::nullopt,
                           viewTilt->count() ? std::optional<double>(options.viewTiltDeg) : std::nullopt, saveOptions);
    }
    if (imagePath.empty() || outPath.empty())
      throw std::runtime_error("give a target image and --out (or --database with --folder or --list)");
    if (!picturePath.empty() && !cv::haveImageWriter(picturePath))
      throw std::runtime_error("--picture '" + picturePath + "': OpenCV writes no image of that name (give .png or .jpg)");
    const auto start = std::chrono::steady_clock::now();
    if (!std::filesystem::is_regular_file(imagePath))
      throw std::runtime_error("target image '" + imagePath + "' does not exist");
    const cv::Mat image = cv::imread(imagePath, cv::IMREAD_GRAYSCALE);
    if (image.empty()) throw std::runtime_error("cannot read target image '" + imagePath + "' (not an image?)");
    options.descriptorType = descriptor == 36 ? DescriptorType::Surf36 : DescriptorType::Surf64;
    options.orientation = upright ? Orientation::Upright : Orientation::Oriented;
    options.geometry = nft::train::geometryOf(geometry, image.size(), options.widthMetres, width->count() > 0);

    TargetModel model;
    if (extractor == "cpu") {
      const SurfCpu surf({options.descriptorType, options.orientation, 0});
      model = trainTarget(image, options, [&](const cv::Mat& gray, std::vector<Keypoint>& kps) {
        return surf.describe(gray, kps);
      });
    } else {
      nft::gpu::ContextOptions contextOptions;
      contextOptions.platform = nft::gpu::parseEglPlatform(platform);
      const nft::gpu::Context context = nft::gpu::Context::createHeadless(contextOptions);
      SurfEsOptions surfOptions;
      surfOptions.maxWidth = surfOptions.maxHeight = options.workingSize;
      surfOptions.maxKeypoints = options.detector.maxKeypoints;
      surfOptions.type = options.descriptorType;
      surfOptions.orientation = options.orientation;
      SurfEs surfEs(nft::gpu::probeCapabilities(), surfOptions);
      model = trainTarget(image, options, [&](const cv::Mat& gray, std::vector<Keypoint>& kps) {
        return surfEs.describe(gray, kps);
      });
    }
    saveTargetModel(model, outPath);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printReport(imagePath, image, model, outPath, seconds);
    if (!picturePath.empty()) {
      const nft::train::TargetPicture picture = nft::train::targetPicture(model);
      if (!cv::imwrite(picturePath, picture.image))
        throw std::runtime_error("cannot write the picture '" + picturePath + "'");
      std::printf("Picture:    %s (%dx%d; too plain to track: %.0f%% of the target)\n", picturePath.c_str(),
                  picture.image.cols, picture.image.rows, 100.0 * picture.plainFraction);
    }
  } catch (const std::exception& e) {
    std::cerr << "nft_train: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
