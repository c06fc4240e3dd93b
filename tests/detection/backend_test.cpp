// The detection backends (detection/backend.h): the renderer-name classification behind `auto`,
// the resolution of gpu | cpu | auto, and the CPU and GPU describers and matchers giving the same
// descriptors and matches behind one interface; cross-checking with either matcher.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "detection/backend.h"
#include "detection/fast_detector.h"
#include "gpu/capabilities.h"
#include "gpu/gpu_test.h"
#include "support/test_data.h"

namespace nft::detection {
namespace {

using nft::gpu::testing::GpuTest;

TEST(RendererClassification, CpuRasterisersAreSoftwareAndMobileAndDesktopGpusAreNot) {
  for (const char* name : {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "SwiftShader", "Google SwiftShader",
                           "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)",
                           "Software Rasterizer", "LLVMPIPE"})
    EXPECT_TRUE(gpu::isSoftwareRenderer(name)) << name;
  for (const char* name : {"Mali-G78", "Mali-400 MP", "Adreno (TM) 640", "NVIDIA H100 80GB HBM3/PCIe/SSE2",
                           "PowerVR Rogue GE8320", "V3D 4.2", "Apple M1", "Mesa Intel(R) UHD Graphics 620 (KBL GT2)",
                           ""})
    EXPECT_FALSE(gpu::isSoftwareRenderer(name)) << name;
}

TEST(BackendResolution, AutoTakesTheCpuOnASoftwareRendererAndTheGpuElsewhere) {
  EXPECT_EQ(resolveBackend(Backend::Auto, gpu::isSoftwareRenderer("llvmpipe (LLVM 15.0.6, 256 bits)")), Backend::Cpu);
  EXPECT_EQ(resolveBackend(Backend::Auto, gpu::isSoftwareRenderer("SwiftShader")), Backend::Cpu);
  EXPECT_EQ(resolveBackend(Backend::Auto, gpu::isSoftwareRenderer("Mali-G78")), Backend::Gpu);
  EXPECT_EQ(resolveBackend(Backend::Auto, gpu::isSoftwareRenderer("Adreno (TM) 640")), Backend::Gpu);
  // Forced backends stay forced whatever the renderer.
  for (bool software : {false, true}) {
    EXPECT_EQ(resolveBackend(Backend::Gpu, software), Backend::Gpu);
    EXPECT_EQ(resolveBackend(Backend::Cpu, software), Backend::Cpu);
  }
  gpu::Capabilities caps;
  caps.softwareRenderer = false;
  EXPECT_EQ(resolveBackend(Backend::Auto, caps), Backend::Gpu);
  caps.softwareRenderer = true;
  EXPECT_EQ(resolveBackend(Backend::Auto, caps), Backend::Cpu);
}

TEST(BackendResolution, NamesRoundTrip) {
  for (Backend b : {Backend::Auto, Backend::Gpu, Backend::Cpu}) EXPECT_EQ(parseBackend(toString(b)), b);
  EXPECT_FALSE(parseBackend("GPU").has_value());
  EXPECT_FALSE(parseBackend("").has_value());
}

class BackendTest : public GpuTest {
 protected:
  SurfEsOptions surfFor(const cv::Mat& image, int maxKeypoints) const {
    SurfEsOptions o;
    o.maxWidth = image.cols;
    o.maxHeight = image.rows;
    o.maxKeypoints = maxKeypoints;
    return o;
  }
};

TEST_F(BackendTest, AutoOnThisMachineFollowsTheProbe) {
  const SurfEsOptions o;
  const auto describer = makeKeypointDescriber(Backend::Auto, caps(), o);
  const auto matcher = makeTargetMatcher(Backend::Auto, caps(), 100);
  const Backend expected = caps().softwareRenderer ? Backend::Cpu : Backend::Gpu;
  EXPECT_EQ(describer->backend(), expected) << caps().glRenderer;
  EXPECT_EQ(matcher->backend(), expected) << caps().glRenderer;
  EXPECT_EQ(makeKeypointDescriber(Backend::Gpu, caps(), o)->backend(), Backend::Gpu);
  EXPECT_EQ(makeKeypointDescriber(Backend::Cpu, caps(), o)->backend(), Backend::Cpu);
  EXPECT_EQ(makeTargetMatcher(Backend::Gpu, caps(), 100)->backend(), Backend::Gpu);
  EXPECT_EQ(makeTargetMatcher(Backend::Cpu, caps(), 100)->backend(), Backend::Cpu);
}

// graf img1 → img2 (a real image pair): each backend pair describes both images and matches them;
// the CPU lanes (SurfCpu + BFMatcher) and the GPU lanes (SURF-ES + GpuMatcher) find mostly the same
// pairs, and both find about as many right ones (by the ground-truth homography).
TEST_F(BackendTest, CpuAndGpuBackendsGiveTheSameMatchesOnARealImage) {
  NFT_REQUIRE_DATA("oxford/graf/img1.png");
  const cv::Mat a = testing::loadGray("oxford/graf/img1.png");
  const cv::Mat b = testing::loadGray("oxford/graf/img2.png");
  FastDetectorOptions fo;
  fo.maxKeypoints = 600;
  const FastDetector detector(fo);
  const std::vector<Keypoint> ka0 = detector.detect(a), kb0 = detector.detect(b);
  std::map<Backend, std::vector<Match>> found;
  std::map<Backend, std::vector<Keypoint>> queries;
  for (Backend backend : {Backend::Cpu, Backend::Gpu}) {
    std::vector<Keypoint> ka = ka0, kb = kb0;
    auto describer = makeKeypointDescriber(backend, caps(), surfFor(a, fo.maxKeypoints));
    auto matcher = makeTargetMatcher(backend, caps(), fo.maxKeypoints);
    const FrameDescriptors target = describer->describe(a, ka, true);
    ASSERT_EQ(target.host.rows, static_cast<int>(ka.size()));
    matcher->setTarget(target.host);
    EXPECT_EQ(matcher->targetCount(), target.host.rows);
    const MatchOptions options{0.8f, false};
    const FrameDescriptors frame = describer->describe(b, kb, matcher->needsHostQueries(options));
    EXPECT_EQ(frame.count, static_cast<int>(kb.size()));
    // The GPU lanes leave the frame's descriptors on the GPU; the CPU ones have them on the host.
    EXPECT_EQ(frame.onDevice(), backend == Backend::Gpu);
    EXPECT_EQ(!frame.host.empty(), backend == Backend::Cpu);
    found[backend] = matcher->match(frame, options);
    queries[backend] = kb;
  }
  std::set<std::pair<int, int>> cpu;
  for (const Match& m : found[Backend::Cpu]) cpu.insert({m.query, m.target});
  int same = 0;
  for (const Match& m : found[Backend::Gpu]) same += cpu.count({m.query, m.target}) ? 1 : 0;
  const size_t nCpu = found[Backend::Cpu].size(), nGpu = found[Backend::Gpu].size();
  std::cout << "graf 1->2: cpu " << nCpu << " matches, gpu " << nGpu << ", " << same << " the same\n";
  ASSERT_GT(nCpu, 100u);
  // Measured: SURF-ES's one lookup per box is close to, not equal to, the exact box means.
  EXPECT_GE(same, static_cast<int>(0.8 * static_cast<double>(std::min(nCpu, nGpu))));
  EXPECT_LT(std::abs(static_cast<double>(nCpu) - static_cast<double>(nGpu)), 0.2 * static_cast<double>(nCpu));
}

// Exact host descriptors: the CPU and GPU matchers agree pair for pair, and the cross-check (both
// backends) keeps exactly the mutual nearest neighbours.
TEST_F(BackendTest, CrossCheckRemovesAsymmetricMatchesWithEitherMatcher) {
  // Targets: 4 unit vectors. Queries 0 and 1 are both nearest to target 0 (query 1 is closer),
  // query 2 is nearest to target 2 and target 2's nearest query.
  cv::Mat targets = cv::Mat::zeros(4, 64, CV_32F);
  for (int i = 0; i < 4; ++i) targets.at<float>(i, i) = 1.0f;
  cv::Mat queries = cv::Mat::zeros(3, 64, CV_32F);
  queries.at<float>(0, 0) = 0.8f;
  queries.at<float>(0, 10) = 0.6f;  // |q0 - t0| = 0.63
  queries.at<float>(1, 0) = 0.95f;
  queries.at<float>(1, 11) = std::sqrt(1 - 0.95f * 0.95f);  // |q1 - t0| = 0.32
  queries.at<float>(2, 2) = 0.9f;
  queries.at<float>(2, 12) = std::sqrt(1 - 0.81f);
  FrameDescriptors frame;
  frame.count = 3;
  frame.host = queries;
  for (Backend backend : {Backend::Cpu, Backend::Gpu}) {
    auto matcher = makeTargetMatcher(backend, caps(), 16);
    matcher->setTarget(targets);
    const std::vector<Match> plain = matcher->match(frame, MatchOptions{1.0f, false});
    ASSERT_EQ(plain.size(), 3u) << toString(backend);
    EXPECT_EQ(plain[0].target, 0);
    EXPECT_EQ(plain[1].target, 0);
    EXPECT_EQ(plain[2].target, 2);
    EXPECT_TRUE(matcher->needsHostQueries(MatchOptions{1.0f, true}));
    const std::vector<Match> mutual = matcher->match(frame, MatchOptions{1.0f, true});
    ASSERT_EQ(mutual.size(), 2u) << toString(backend);
    EXPECT_EQ(mutual[0].query, 1);  // query 0 lost target 0 to the closer query 1
    EXPECT_EQ(mutual[0].target, 0);
    EXPECT_EQ(mutual[1].query, 2);
    EXPECT_EQ(mutual[1].target, 2);
  }
}

TEST_F(BackendTest, QueriesInTheWrongPlaceAreRefused) {
  cv::Mat targets = cv::Mat::eye(4, 64, CV_32F);
  FrameDescriptors gpuOnly;
  gpuOnly.count = 2;  // neither host rows nor a texture: as a GPU describer's output would look to a CPU matcher
  auto cpu = makeTargetMatcher(Backend::Cpu, caps(), 16);
  cpu->setTarget(targets);
  EXPECT_THROW(cpu->match(gpuOnly, MatchOptions{}), std::invalid_argument);
  auto gpuMatcher = makeTargetMatcher(Backend::Gpu, caps(), 16);
  gpuMatcher->setTarget(targets);
  EXPECT_THROW(gpuMatcher->match(gpuOnly, MatchOptions{0.8f, true}), std::invalid_argument);
  EXPECT_TRUE(cpu->match(FrameDescriptors{}, MatchOptions{}).empty());
}

}  // namespace
}  // namespace nft::detection
