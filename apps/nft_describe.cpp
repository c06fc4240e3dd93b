// nft_describe: SURF descriptors for given keypoints of an image, by the GPU extractor
// (SURF-ES on OpenGL ES 2.0) or the CPU lane, written as CSV — how anyone checks our
// descriptors against another SURF implementation.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <opencv2/imgcodecs.hpp>

#include "detection/fast_detector.h"
#include "detection/keypoint_io.h"
#include "detection/surf_cpu.h"
#include "detection/surf_es.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"

using namespace nft::detection;

int main(int argc, char** argv) {
  CLI::App app{
      "nft_describe: SURF descriptors (SURF-ES on the GPU, or the CPU lane) for the keypoints of a CSV file.\n"
      "Keypoint CSV: header 'x,y,scale' or 'x,y,scale,angle'; x, y in pixels ((0,0) = centre of the top-left\n"
      "pixel), SURF scale s (window 20s; OpenCV's SURF KeyPoint.size = 7.5 s), angle in degrees as OpenCV's\n"
      "KeyPoint.angle (negative: none). Output CSV: header d0,...,d63 (or d35), one row per input keypoint.\n"
      "With --detect N instead of --keypoints, the project's scale-aware FAST finds N keypoints and each row\n"
      "starts with x,y,scale,angle."};
  std::string imagePath, keypointsPath, outPath;
  std::string extractor = "surfes", storage = "auto", platform = "auto";
  bool upright = false, oriented = false;
  int descriptor = 64, precision = 0, detect = 0;
  app.add_option("--image", imagePath, "input image (any format OpenCV reads; colour is converted to gray)")
      ->required();
  auto* keypointsOption = app.add_option("--keypoints", keypointsPath, "keypoint CSV file");
  auto* detectOption = app.add_option("--detect", detect, "detect this many keypoints with scale-aware FAST instead")
                           ->check(CLI::Range(1, 100000));
  keypointsOption->excludes(detectOption);
  app.add_option("--out", outPath, "output descriptor CSV file")->required();
  app.add_option("--extractor", extractor, "surfes (GPU) or cpu")
      ->check(CLI::IsMember({"surfes", "cpu"}))
      ->capture_default_str();
  auto* up = app.add_flag("--upright", upright, "upright descriptors (U-SURF), angles ignored");
  app.add_flag("--oriented", oriented,
               "oriented descriptors (the default): the CSV's angle where given (>= 0), else the "
               "intensity-centroid orientation")
      ->excludes(up);
  app.add_option("--descriptor", descriptor, "64 (SURF-64) or 36 (SURF-36)")
      ->check(CLI::IsMember({64, 36}))
      ->capture_default_str();
  app.add_option("--storage", storage, "SURF-ES storage path: auto, rgba8 or float")
      ->check(CLI::IsMember({"auto", "rgba8", "float"}))
      ->capture_default_str();
  app.add_option("--precision", precision,
                 "SURF-ES fragment precision p to emulate (e.g. 10 for a Mali-400); 0 = the GPU's")
      ->check(CLI::Range(0, 24))
      ->capture_default_str();
  app.add_option("--platform", platform, "EGL platform: auto, surfaceless, device or default")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (keypointsPath.empty() && detect == 0) {
    std::cerr << "nft_describe: give --keypoints FILE or --detect N (see --help)\n";
    return 1;
  }

  try {
    if (!std::filesystem::is_regular_file(imagePath)) throw std::runtime_error("image '" + imagePath + "' does not exist");
    const cv::Mat image = cv::imread(imagePath, cv::IMREAD_COLOR);
    if (image.empty()) throw std::runtime_error("cannot read image '" + imagePath + "'");
    KeypointCsv csv;
    if (detect > 0) {
      FastDetectorOptions detectorOptions;
      detectorOptions.maxKeypoints = detect;
      csv.keypoints = FastDetector(detectorOptions).detect(image);
      csv.lines.assign(csv.keypoints.size(), 0);
    } else {
      csv = readKeypointsCsv(keypointsPath);
    }
    // A keypoint that cannot be described is an error naming its line of the CSV file.
    for (size_t i = 0; i < csv.keypoints.size(); ++i) {
      try {
        validateKeypoints({csv.keypoints[i]}, image.size());
      } catch (const std::invalid_argument& e) {
        std::string why = e.what();
        why = why.substr(why.find(':') + 2);  // drop "keypoint 0: "
        throw std::runtime_error("keypoint file '" + keypointsPath + "' line " + std::to_string(csv.lines[i]) +
                                 ": " + why + " for the " + std::to_string(image.cols) + "x" +
                                 std::to_string(image.rows) + " image '" + imagePath + "'");
      }
    }
    const DescriptorType type = descriptor == 36 ? DescriptorType::Surf36 : DescriptorType::Surf64;
    const Orientation orientation = upright ? Orientation::Upright : Orientation::Oriented;
    cv::Mat descriptors;
    if (extractor == "cpu") {
      SurfCpuOptions options;
      options.type = type;
      options.orientation = orientation;
      descriptors = SurfCpu(options).describe(image, csv.keypoints);
    } else {
      nft::gpu::ContextOptions contextOptions;
      contextOptions.platform = nft::gpu::parseEglPlatform(platform);
      const nft::gpu::Context context = nft::gpu::Context::createHeadless(contextOptions);
      const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
      SurfEsOptions options;
      options.maxWidth = image.cols;
      options.maxHeight = image.rows;
      options.maxKeypoints = std::max<int>(1, static_cast<int>(csv.keypoints.size()));
      options.type = type;
      options.orientation = orientation;
      options.storage = storage == "rgba8"   ? DescriptorStorage::Rgba8
                        : storage == "float" ? DescriptorStorage::Float
                                             : DescriptorStorage::Auto;
      options.precisionBits = precision;
      SurfEs surfEs(caps, options);
      descriptors = surfEs.describe(image, csv.keypoints);
    }
    writeDescriptorsCsv(outPath, descriptors, detect > 0 ? &csv.keypoints : nullptr);
    std::fprintf(stderr, "nft_describe: %d descriptors (%d bins, %s, %s) -> %s\n", descriptors.rows, descriptors.cols,
                 extractor.c_str(), upright ? "upright" : "oriented", outPath.c_str());
  } catch (const std::exception& e) {
    std::cerr << "nft_describe: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
