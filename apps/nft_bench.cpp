// nft_bench: the project's performance table in one command. Each part of the pipeline —
// SurfEs per pass and in total, the CPU SURF lane, GpuMatcher, scale-aware FAST, the tracking
// and detection lanes per frame, the renderer per frame and the whole replay — is measured
// through the library's own APIs next to the baseline users would otherwise pick, in the same
// run, as medians over repetitions; the ratio says how many times faster ours is. The GL
// renderer, GL version and CPU model head the table and the JSON, so llvmpipe and real-GPU runs
// are not confused. Cases and their baselines: apps/bench/bench_cases.h.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <string>
#include <thread>

#include <opencv2/core.hpp>

#include "apps/bench/bench_cases.h"
#include "apps/bench/bench_run.h"
#include "apps/replay/replay_report.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"

int main(int argc, char** argv) {
  CLI::App app{
      "nft_bench: the performance table of the NFT pipeline (docs/programs/nft_bench.md). Each case runs our code path\n"
      "and its baseline in the same run (medians over repetitions); ratio = how many times faster ours is.\n"
      "Cases: surf_es/<rgba8|float>/<surf64|surf36>/n<256..4096>, surf_cpu/...,\n"
      "surf_es_boxes/<float|rgba8>/<upright|oriented>/n1020, matcher/1000x<1000|8192>,\n"
      "fast/cmu_book_640x480, tracking_lane/tmt_bookI, detection_lane/tmt_bookI[/gpu_backends],\n"
      "render/640x480/<readback|draw>,\n"
      "replay/cmu_book/<no_render|render>. Real data: ../shared/data (oxford/graf, video/cmu_book,\n"
      "video/tmt_bookI); cases without their data are reported as skipped, naming the file."};
  std::string json, filter, platform = "auto";
  std::string dataDir;
  bool quick = false;
  app.add_option("--json", json, "write the results as JSON to this file");
  app.add_option("--filter", filter, "run only the cases whose name matches this regex (ECMAScript, searched)");
  app.add_flag("--quick", quick, "fewer repetitions and sizes (a smoke run, e.g. for a test)");
  app.add_option("--data", dataDir, "real data folder (default: $NFT_DATA_DIR, else ../shared/data)");
  app.add_option("--platform", platform, "EGL platform: auto, surfaceless, device or default")
      ->check(CLI::IsMember({"auto", "surfaceless", "device", "default"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    if (dataDir.empty()) {
      const char* env = std::getenv("NFT_DATA_DIR");
      dataDir = env != nullptr && *env != '\0' ? env : "../shared/data";
    }
    if (!json.empty()) {
      const std::filesystem::path folder = std::filesystem::path(json).parent_path();
      if (!folder.empty() && !std::filesystem::is_directory(folder))
        throw std::runtime_error("folder '" + folder.string() + "' of the JSON file '" + json + "' does not exist");
    }
    nft::bench::BenchRun run(quick, filter);  // a bad regex fails here, before any work

    nft::gpu::ContextOptions contextOptions;
    contextOptions.platform = nft::gpu::parseEglPlatform(platform);
    const nft::gpu::Context context = nft::gpu::Context::createHeadless(contextOptions);
    const nft::gpu::Capabilities caps = nft::gpu::probeCapabilities();
    nft::bench::SystemInfo system;
    system.glRenderer = caps.glRenderer;
    system.glVersion = caps.glVersion;
    system.eglPlatform = context.platformDescription();
    system.cpuModel = nft::bench::cpuModel();
    system.cpuCores = static_cast<int>(std::thread::hardware_concurrency());
    system.opencvVersion = CV_VERSION;
    nft::bench::BenchRun::printHeader(std::cout, system);
    if (!std::filesystem::is_directory(dataDir))
      std::cerr << "nft_bench: real data folder '" << dataDir
                << "' is missing: only the cases without data run (give --data or NFT_DATA_DIR)\n";

    const nft::bench::BenchEnv env{caps, dataDir, run, std::cout};
    nft::bench::benchSurf(env);
    nft::bench::benchSurfBoxes(env);
    nft::bench::benchMatcher(env);
    nft::bench::benchFast(env);
    nft::bench::benchLanes(env);
    nft::bench::benchRender(env);
    nft::bench::benchReplay(env);

    int measured = 0, skipped = 0;
    for (const nft::bench::Result& r : run.results()) (r.skipped.empty() ? measured : skipped)++;
    if (run.results().empty())
      throw std::runtime_error("--filter '" + filter + "' selects no case (see --help for the case names)");
    std::cout << "nft_bench: " << measured << " cases measured, " << skipped << " skipped\n";
    if (!json.empty()) {
      nft::replay::writeJsonAtomically(run.toJson(system), json);
      std::cerr << "nft_bench: wrote " << json << "\n";
    }
  } catch (const std::regex_error& e) {
    std::cerr << "nft_bench: --filter '" << filter << "' is not a valid regex: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "nft_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
