// nft_bench's detection-side cases: SurfEs and the CPU SURF lane, GpuMatcher against
// BFMatcher, scale-aware FAST (see bench_cases.h).

#include <GLES2/gl2.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "apps/bench/bench_cases.h"
#include "apps/eval/opencv_threads.h"
#include "detection/fast_detector.h"
#include "detection/gpu_matcher.h"
#include "detection/surf_cpu.h"
#include "detection/surf_es.h"

namespace nft::bench {

using detection::DescriptorStorage;
using detection::DescriptorType;
using detection::Keypoint;
using eval::OpenCvThreads;

std::string BenchEnv::missingData(const std::vector<std::string>& relatives) const {
  for (const std::string& r : relatives) {
    const std::filesystem::path p = dataDir / r;
    if (!std::filesystem::exists(p))
      return "real data missing: " + p.string() + " (data folder " + dataDir.string() +
             "; check out shared/ beside the repository, or give --data / NFT_DATA_DIR)";
  }
  return "";
}

void BenchEnv::skipAll(const std::vector<std::string>& names, const std::string& group,
                       const std::string& reason) const {
  for (const std::string& n : names)
    if (run.wants(n)) run.skip(n, group, reason, out);
}

namespace {

cv::Mat readGray(const std::filesystem::path& path) {
  cv::Mat image = cv::imread(path.string(), cv::IMREAD_GRAYSCALE);
  if (image.empty()) throw std::runtime_error("cannot read image '" + path.string() + "'");
  return image;
}

int cpuCores() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

/// The `count` strongest scale-aware FAST keypoints of `image` (a low FAST threshold, so that
/// large counts exist). Where FAST finds fewer, the list is repeated with a growing sub-pixel
/// shift, so that every count is a workload of exactly that size.
std::vector<Keypoint> fastKeypoints(const cv::Mat& image, int count) {
  detection::FastDetectorOptions options;
  options.maxKeypoints = count;
  options.threshold = 8;
  std::vector<Keypoint> kps = detection::FastDetector(options).detect(image);
  const size_t found = kps.size();
  for (size_t i = 0; found > 0 && kps.size() < static_cast<size_t>(count); ++i) {
    Keypoint k = kps[i % found];
    const float shift = 0.25f * static_cast<float>(1 + i / found);
    k.x = std::min(k.x + shift, static_cast<float>(image.cols - 1));
    kps.push_back(k);
  }
  return kps;
}

const char* typeName(DescriptorType t) { return t == DescriptorType::Surf64 ? "surf64" : "surf36"; }
const char* storageName(DescriptorStorage s) { return s == DescriptorStorage::Float ? "float" : "rgba8"; }

/// SurfCpu (upright) on `image`: 1 thread (serial) or OpenCV's pool on every core.
Timing timeSurfCpu(const BenchEnv& env, const cv::Mat& image, const std::vector<Keypoint>& kps, DescriptorType type,
                   bool allThreads) {
  const OpenCvThreads threads(allThreads ? cpuCores() : 1);
  const detection::SurfCpu surf({type, detection::Orientation::Upright, allThreads ? 0 : 1});
  std::vector<Keypoint> work = kps;
  return timeCalls(env.run.reps(), env.run.warmup(), [&] {
    cv::Mat d = surf.describe(image, work);
    if (d.rows != static_cast<int>(kps.size())) throw std::logic_error("SurfCpu: wrong descriptor count");
  });
}

/// Per-pass GPU times (ms) of profiled describe() calls: medians over `calls`.
nlohmann::json surfEsPasses(detection::SurfEs& surfEs, const cv::Mat& image, const std::vector<Keypoint>& kps,
                            int calls) {
  std::map<std::string, std::vector<double>> samples;
  surfEs.setProfiling(true);
  for (int i = 0; i < calls; ++i) {
    std::vector<Keypoint> work = kps;
    surfEs.describe(image, work);
    const detection::SurfEsTimings& t = surfEs.lastTimings();
    const std::pair<const char*, double> passes[] = {{"pyramid", t.pyramid}, {"orientation", t.orientation},
                                                     {"lattice", t.lattice}, {"sums", t.sums},
                                                     {"norm", t.norm},       {"normalize", t.normalize},
                                                     {"readback", t.readback}};
    for (const auto& [name, ms] : passes)
      if (std::isfinite(ms)) samples[name].push_back(ms);
  }
  surfEs.setProfiling(false);
  nlohmann::json j = nlohmann::json::object();
  for (auto& [name, v] : samples) j[name + "_ms"] = summarize(v).median;
  return j;
}

}  // namespace

void benchSurf(const BenchEnv& env) {
  const std::vector<DescriptorStorage> storages = {DescriptorStorage::Rgba8, DescriptorStorage::Float};
  const std::vector<DescriptorType> types = {DescriptorType::Surf64, DescriptorType::Surf36};
  const std::vector<int> counts =
      env.run.quick() ? std::vector<int>{1024} : std::vector<int>{256, 512, 1024, 2048, 4096};
  auto esName = [](DescriptorStorage s, DescriptorType t, int n) {
    return std::string("surf_es/") + storageName(s) + "/" + typeName(t) + "/n" + std::to_string(n);
  };
  auto cpuName = [](DescriptorType t, int n) {
    return std::string("surf_cpu/") + typeName(t) + "/n" + std::to_string(n) + "/all_threads";
  };
  std::vector<std::string> names;
  for (DescriptorType t : types)
    for (int n : counts) {
      for (DescriptorStorage s : storages) names.push_back(esName(s, t, n));
      names.push_back(cpuName(t, n));
    }
  if (!env.run.wantsAny(names)) return;
  const std::string image1 = "oxford/graf/img1.png";
  if (const std::string missing = env.missingData({image1}); !missing.empty()) {
    env.skipAll(names, "surf", missing);
    return;
  }
  // The thesis's test image (seeds/000 section 5.1): graf img1 at 512×384.
  cv::Mat image;
  cv::resize(readGray(env.dataDir / image1), image, cv::Size(512, 384), 0, 0, cv::INTER_AREA);
  const int cores = cpuCores();

  for (DescriptorType type : types)
    for (int count : counts) {
      std::vector<std::string> these;
      for (DescriptorStorage s : storages) these.push_back(esName(s, type, count));
      these.push_back(cpuName(type, count));
      if (!env.run.wantsAny(these)) continue;
      const std::vector<Keypoint> kps = fastKeypoints(image, count);
      const Baseline cpu1{"SurfCpu upright, 1 thread", timeSurfCpu(env, image, kps, type, false)};
      const Baseline cpuAll{"SurfCpu upright, " + std::to_string(cores) + " threads",
                            timeSurfCpu(env, image, kps, type, true)};
      for (DescriptorStorage storage : storages) {
        const std::string name = esName(storage, type, count);
        if (!env.run.wants(name)) continue;
        detection::SurfEsOptions options;
        options.maxWidth = image.cols;
        options.maxHeight = image.rows;
        options.maxKeypoints = count;
        options.type = type;
        options.orientation = detection::Orientation::Upright;
        options.storage = storage;
        std::optional<detection::SurfEs> surfEs;
        try {
          surfEs.emplace(env.caps, options);
        } catch (const std::invalid_argument& e) {
          env.run.skip(name, "surf_es", std::string("not available on this GPU: ") + e.what(), env.out);
          continue;
        }
        const Timing ours = timeCalls(env.run.reps(), env.run.warmup(), [&] {
          surfEs->extract(image, kps);
          glFinish();
        });
        Result r = makeResult(name, "surf_es",
                              std::string("SurfEs::extract upright ") + typeName(type) + ", " + storageName(storage) +
                                  " storage, graf img1 512x384, " + std::to_string(count) +
                                  " keypoints, upload included, glFinish",
                              ours, {cpu1, cpuAll});
        r.extra["keypoints"] = count;
        r.extra["passes_ms"] = surfEsPasses(*surfEs, image, kps, std::min(env.run.reps(), 5));
        env.run.add(std::move(r), env.out);
      }
      if (env.run.wants(cpuName(type, count))) {
        Result r = makeResult(cpuName(type, count), "surf_cpu",
                              std::string("SurfCpu::describe upright ") + typeName(type) + " on OpenCV's pool (" +
                                  std::to_string(cores) + " threads), graf img1 512x384, " + std::to_string(count) +
                                  " keypoints",
                              cpuAll.timing, {cpu1});
        r.extra["keypoints"] = count;
        r.extra["threads"] = cores;
        env.run.add(std::move(r), env.out);
      }
    }
}

void benchMatcher(const BenchEnv& env) {
  const std::vector<int> targetCounts = {1000, 8192};
  std::vector<std::string> names;
  for (int m : targetCounts) names.push_back("matcher/1000x" + std::to_string(m));
  if (!env.run.wantsAny(names)) return;
  const std::vector<std::string> images = {"oxford/graf/img1.png", "oxford/graf/img2.png", "oxford/graf/img3.png",
                                           "oxford/graf/img4.png", "oxford/graf/img5.png", "oxford/graf/img6.png"};
  if (const std::string missing = env.missingData(images); !missing.empty()) {
    env.skipAll(names, "matcher", missing);
    return;
  }
  constexpr int kQueries = 1000;
  constexpr int kPerImage = 2048;
  detection::SurfEsOptions surfOptions;  // SURF-64, oriented: what the detection lane matches
  surfOptions.maxWidth = 1024;
  surfOptions.maxHeight = 1024;
  surfOptions.maxKeypoints = kPerImage;
  detection::SurfEs surfEs(env.caps, surfOptions);
  // Targets: img1's 1000 strongest; 8192 from img1, 2, 4, 5 and 6 (real descriptors, not copies).
  const cv::Mat image3 = readGray(env.dataDir / images[2]);
  std::vector<Keypoint> queryKeypoints = fastKeypoints(image3, kQueries);
  cv::Mat targets1000, targets8192;  // fastKeypoints() gives exactly the count: 5 × 2048 ≥ 8192 rows
  for (size_t i : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{5}}) {
    const cv::Mat image = readGray(env.dataDir / images[i]);
    std::vector<Keypoint> kps = fastKeypoints(image, kPerImage);
    targets8192.push_back(surfEs.describe(image, kps));
    if (i == 0) {
      std::vector<Keypoint> strongest = fastKeypoints(image, kQueries);
      targets1000 = surfEs.describe(image, strongest);
    }
  }
  targets8192 = targets8192.rowRange(0, 8192).clone();
  std::vector<Keypoint> work = queryKeypoints;
  const cv::Mat queriesCpu = surfEs.describe(image3, work);

  for (int m : targetCounts) {
    const std::string name = "matcher/1000x" + std::to_string(m);
    if (!env.run.wants(name)) continue;
    const cv::Mat& targets = m == 1000 ? targets1000 : targets8192;
    detection::GpuMatcherOptions options;
    options.maxQueries = kQueries;
    detection::GpuMatcher matcher(env.caps, options);
    matcher.setTarget(targets);
    const detection::GpuDescriptors queries = surfEs.extract(image3, queryKeypoints);
    size_t gpuAccepted = 0;
    Result r = makeResult(name, "matcher",
                          "GpuMatcher::match (ratio 0.8, compact readback, glFinish), SURF-64 of graf img3 (1000 "
                          "queries, left on the GPU) against " + std::to_string(m) + " targets",
                          timeCalls(env.run.reps(), env.run.warmup(), [&] {
                            gpuAccepted = matcher.match(queries).size();
                            glFinish();
                          }));
    for (int threads : {1, 2}) {
      const OpenCvThreads scope(threads);
      cv::BFMatcher bf(cv::NORM_L2);
      size_t accepted = 0;
      const Timing t = timeCalls(env.run.reps(), env.run.warmup(), [&] {
        std::vector<std::vector<cv::DMatch>> knn;
        bf.knnMatch(queriesCpu, targets, knn, 2);
        accepted = static_cast<size_t>(std::count_if(knn.begin(), knn.end(), [](const std::vector<cv::DMatch>& k) {
          return k.size() == 2 && k[0].distance < 0.8f * k[1].distance;
        }));
      });
      r.baselines.push_back({"BFMatcher knnMatch k=2, " + std::to_string(threads) + " thread" +
                                 (threads > 1 ? "s" : ""),
                             t});
      r.extra["bf_accepted"] = accepted;
    }
    r.extra["gpu_accepted"] = gpuAccepted;
    r.extra["gpu_float_path"] = matcher.floatPath();
    r.extra["queries"] = kQueries;
    r.extra["targets"] = m;
    env.run.add(std::move(r), env.out);
  }
}

void benchFast(const BenchEnv& env) {
  const std::string name = "fast/cmu_book_640x480";
  if (!env.run.wants(name)) return;
  const std::string video = "video/cmu_book/book.mp4";
  if (const std::string missing = env.missingData({video}); !missing.empty()) {
    env.skipAll({name}, "fast", missing);
    return;
  }
  cv::VideoCapture capture((env.dataDir / video).string());
  cv::Mat frame, gray;
  for (int i = 0; i <= 100 && capture.read(frame); ++i) {
  }
  if (frame.empty()) throw std::runtime_error("cannot read frame 100 of '" + (env.dataDir / video).string() + "'");
  cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);

  const OpenCvThreads one(1);
  const detection::FastDetectorOptions options;
  const detection::FastDetector detector(options);
  size_t ours = 0;
  Result r = makeResult(name, "fast",
                        "FastDetector::detect (FAST-9 on a 4-level sqrt(2) pyramid, grid spread, 1000 strongest), "
                        "frame 100 of cmu_book grey, 1 thread",
                        timeCalls(env.run.reps() * 3, env.run.warmup(), [&] { ours = detector.detect(gray).size(); }));
  std::vector<cv::KeyPoint> corners;
  r.baselines.push_back({"cv::FAST full frame, one level", timeCalls(env.run.reps() * 3, env.run.warmup(), [&] {
                           cv::FAST(gray, corners, options.threshold, true, cv::FastFeatureDetector::TYPE_9_16);
                         })});
  const cv::Ptr<cv::ORB> orb = cv::ORB::create(options.maxKeypoints);
  std::vector<cv::KeyPoint> orbKeypoints;
  r.baselines.push_back({"cv::ORB detect, 1000 keypoints", timeCalls(env.run.reps() * 3, env.run.warmup(), [&] {
                           orb->detect(gray, orbKeypoints);
                         })});
  r.extra["keypoints"] = ours;
  r.extra["cv_fast_keypoints"] = corners.size();
  r.extra["orb_keypoints"] = orbKeypoints.size();
  env.run.add(std::move(r), env.out);
}

}  // namespace nft::bench
