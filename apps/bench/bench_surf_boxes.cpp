// nft_bench's SURF-ES box-read cases (issue 36): the default SurfEs (boxTaps 2, quarter boxes
// from the box pyramid) against one lookup per box, four quarter-box lookups and SurfCpu on one
// thread, timed in interleaved rounds (see bench_cases.h).

#include <GLES2/gl2.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "apps/bench/bench_cases.h"
#include "apps/eval/opencv_threads.h"
#include "detection/fast_detector.h"
#include "detection/surf_cpu.h"
#include "detection/surf_es.h"

namespace nft::bench {

namespace {

using detection::DescriptorStorage;
using detection::Keypoint;
using detection::Orientation;
using detection::QuarterBoxes;

/// Times every candidate once per round, `reps` rounds after `warmup` (the candidates share the
/// machine's noise: a shared 2-core machine drifts by tens of percent within a second).
std::vector<Timing> timeInterleaved(int reps, int warmup, const std::vector<std::function<void()>>& candidates) {
  std::vector<std::vector<double>> ms(candidates.size());
  for (int round = 0; round < warmup + reps; ++round)
    for (size_t c = 0; c < candidates.size(); ++c) {
      const auto start = std::chrono::steady_clock::now();
      candidates[c]();
      const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (round >= warmup) ms[c].push_back(elapsed);
    }
  std::vector<Timing> out;
  for (std::vector<double>& v : ms) out.push_back(summarize(std::move(v)));
  return out;
}

}  // namespace

void benchSurfBoxes(const BenchEnv& env) {
  const std::vector<DescriptorStorage> storages = {DescriptorStorage::Float, DescriptorStorage::Rgba8};
  const std::vector<Orientation> orientations = {Orientation::Upright, Orientation::Oriented};
  auto caseName = [](DescriptorStorage s, Orientation o) {
    return std::string("surf_es_boxes/") + (s == DescriptorStorage::Float ? "float" : "rgba8") + "/" +
           (o == Orientation::Upright ? "upright" : "oriented") + "/n1020";
  };
  std::vector<std::string> names;
  for (DescriptorStorage s : storages)
    for (Orientation o : orientations) names.push_back(caseName(s, o));
  if (!env.run.wantsAny(names)) return;
  const std::string image1 = "oxford/graf/img1.png";
  if (const std::string missing = env.missingData({image1}); !missing.empty()) {
    env.skipAll(names, "surf_es_boxes", missing);
    return;
  }
  // The thesis's test (seeds/000 section 5.1): graf img1 at 512×384, 1020 keypoints.
  const cv::Mat full = cv::imread((env.dataDir / image1).string(), cv::IMREAD_GRAYSCALE);
  if (full.empty()) throw std::runtime_error("cannot read image '" + (env.dataDir / image1).string() + "'");
  cv::Mat image;
  cv::resize(full, image, cv::Size(512, 384), 0, 0, cv::INTER_AREA);
  detection::FastDetectorOptions fastOptions;
  fastOptions.maxKeypoints = 1020;
  fastOptions.threshold = 8;
  const std::vector<Keypoint> kps = detection::FastDetector(fastOptions).detect(image);
  const eval::OpenCvThreads oneThread(1);

  for (DescriptorStorage storage : storages)
    for (Orientation orientation : orientations) {
      const std::string name = caseName(storage, orientation);
      if (!env.run.wants(name)) continue;
      auto make = [&](int boxTaps, QuarterBoxes quarterBoxes) {
        detection::SurfEsOptions options;
        options.maxWidth = image.cols;
        options.maxHeight = image.rows;
        options.maxKeypoints = static_cast<int>(kps.size());
        options.orientation = orientation;
        options.storage = storage;
        options.boxTaps = boxTaps;
        options.quarterBoxes = quarterBoxes;
        return detection::SurfEs(env.caps, options);
      };
      std::optional<detection::SurfEs> boxPyramid, oneLookup, fourLookups;
      try {
        boxPyramid.emplace(make(2, QuarterBoxes::BoxPyramid));
        oneLookup.emplace(make(1, QuarterBoxes::BoxPyramid));
        fourLookups.emplace(make(2, QuarterBoxes::Lookups));
      } catch (const std::invalid_argument& e) {
        env.run.skip(name, "surf_es_boxes", std::string("not available on this GPU: ") + e.what(), env.out);
        continue;
      }
      auto gpuCall = [&](detection::SurfEs& surf) {
        return [&surf, &image, &kps] {
          surf.extract(image, kps);
          glFinish();
        };
      };
      const detection::SurfCpu cpu({detection::DescriptorType::Surf64, orientation, 1});
      std::vector<Keypoint> work = kps;
      const std::vector<Timing> t = timeInterleaved(
          env.run.reps(), env.run.warmup(),
          {gpuCall(*boxPyramid), gpuCall(*oneLookup), gpuCall(*fourLookups), [&] {
             work = kps;  // oriented: angles computed every call, as SurfEs does
             cv::Mat d = cpu.describe(image, work);
             if (d.rows != static_cast<int>(kps.size())) throw std::logic_error("SurfCpu: wrong descriptor count");
           }});
      const std::string orientationName = orientation == Orientation::Upright ? "upright" : "oriented";
      Result r = makeResult(name, "surf_es_boxes",
                            "SurfEs::extract " + orientationName + " surf64, " +
                                (storage == DescriptorStorage::Float ? "float" : "rgba8") +
                                " storage, box_taps 2 from the box pyramid (the default), graf img1 512x384, " +
                                std::to_string(kps.size()) + " keypoints, upload included, glFinish",
                            t[0],
                            {{"SurfEs box_taps 1 (one lookup per box)", t[1]},
                             {"SurfEs box_taps 2, four quarter-box lookups", t[2]},
                             {"SurfCpu " + orientationName + ", 1 thread", t[3]}});
      r.extra["keypoints"] = static_cast<int>(kps.size());
      r.extra["interleaved"] = true;
      env.run.add(std::move(r), env.out);
    }
}

}  // namespace nft::bench
