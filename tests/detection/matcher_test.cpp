// GpuMatcher against CpuMatcher (OpenCV BFMatcher, the reference) on real SURF descriptors of
// oxford/graf img1 and img3 for both SurfEs storage paths and both matcher paths (merge, and
// reduce/refine), the multi-pass (tiled) path, large targets, Laplacian-sign pruning, the ratio
// test, the cross-check, empty inputs and errors.

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "detection/cpu_matcher.h"
#include "detection/gpu_matcher.h"
#include "detection/match.h"
#include "detection/surf_es.h"
#include "gpu/capabilities.h"
#include "gpu/gpu_test.h"
#include "support/random_descriptors.h"
#include "support/test_data.h"
#include "support/test_keypoints.h"

namespace nft::detection {
namespace {

using gpu::testing::GpuTest;

struct Agreement {
  int queries = 0;
  int sameIndex = 0;   // same best target
  int ties = 0;        // different target, same d1 within tolerance
  double maxD1Error = 0, maxD2Error = 0;
  double fraction() const { return queries > 0 ? static_cast<double>(sameIndex + ties) / queries : 1.0; }
};

// GPU nearest neighbours against the CPU's: a different best target counts as a mismatch only
// when the distances differ by more than `tolerance` (a tie within the GPU's quantisation).
Agreement compare(const std::vector<Match>& gpu, const std::vector<Match>& cpu, double tolerance) {
  Agreement a;
  EXPECT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < std::min(gpu.size(), cpu.size()); ++i) {
    const Match& g = gpu[i];
    const Match& c = cpu[i];
    EXPECT_EQ(g.query, static_cast<int>(i));
    ++a.queries;
    const double e1 = std::abs(static_cast<double>(g.distance) - c.distance);
    if (g.target == c.target) {
      ++a.sameIndex;
    } else if (e1 <= tolerance) {
      ++a.ties;
    }
    a.maxD1Error = std::max(a.maxD1Error, e1);
    if (std::isfinite(c.secondDistance) || std::isfinite(g.secondDistance))
      a.maxD2Error = std::max(a.maxD2Error, std::abs(static_cast<double>(g.secondDistance) - c.secondDistance));
  }
  return a;
}

using testing::noisyCopies;

cv::Mat randomUnit(int rows, int cols, unsigned seed) { return testing::randomDescriptors(rows, cols, seed); }

// Whether a matcher with these options takes the merge path on `caps`: GL_EXT_draw_buffers
// with a draw buffer per query of a fragment and RGBA16F render targets (GpuMatcherOptions).
bool expectsMergePath(const gpu::Capabilities& caps, const GpuMatcherOptions& o) {
  return o.drawBuffers && !o.forceRgba8 && caps.halfFloatRenderable && caps.has(gpu::Extension::ExtDrawBuffers) &&
         caps.maxDrawBuffers >= o.queriesPerFragment && caps.maxTextureImageUnits >= o.queriesPerFragment + 2;
}

// The matcher's paths on one GPU: merge (the default where the GPU allows it), reduce/refine on
// float targets, and RGBA8 storage (reduce/refine, as on core GLES2).
struct MatcherPath {
  const char* name;
  bool drawBuffers;
  bool forceRgba8;
};
constexpr MatcherPath kPaths[] = {{"merge", true, false}, {"reduce+refine", false, false}, {"rgba8", true, true}};

// --- Real descriptors: graf img1 (target) vs img3 (queries) -------------------------------------

struct PathCase {
  DescriptorStorage storage;  // SurfEs's, for the queries
  bool coreOnly;              // matcher and SurfEs on core GLES2 caps (RGBA8 everywhere)
  bool drawBuffers;           // GpuMatcherOptions::drawBuffers
  double tolerance;           // on distances
};

std::string pathName(const ::testing::TestParamInfo<PathCase>& param) {
  if (param.param.coreOnly) return "rgba8_core";
  return param.param.drawBuffers ? "float" : "float_reduce_refine";
}

class GpuMatcherGrafTest : public GpuTest, public ::testing::WithParamInterface<PathCase> {};

TEST_P(GpuMatcherGrafTest, MatchesLikeTheCpuMatcherOnGraf1Vs3) {
  NFT_REQUIRE_DATA("oxford/graf/img3.png");
  const PathCase& c = GetParam();
  const gpu::Capabilities caps = c.coreOnly ? gpu::probeCapabilities(true) : this->caps();
  const cv::Mat img1 = nft::testing::loadGray("oxford/graf/img1.png");
  const cv::Mat img3 = nft::testing::loadGray("oxford/graf/img3.png");
  std::vector<Keypoint> kps1 = nft::testing::siftKeypoints(img1, 1000);
  std::vector<Keypoint> kps3 = nft::testing::siftKeypoints(img3, 1000);
  SurfEsOptions surfOptions;
  surfOptions.storage = c.storage;
  surfOptions.maxKeypoints = 1000;
  SurfEs surfEs(caps, surfOptions);
  ASSERT_EQ(surfEs.storage(), c.storage);
  const cv::Mat targets = surfEs.describe(img1, kps1);
  std::vector<Keypoint> described = kps3;  // describe() writes the computed angles back
  const cv::Mat queries = surfEs.describe(img3, described);
  const GpuDescriptors onGpu = surfEs.extract(img3, kps3);  // the same descriptors, left on the GPU

  GpuMatcherOptions options;
  options.maxQueries = 1000;
  options.drawBuffers = c.drawBuffers;
  GpuMatcher gpuMatcher(caps, options);
  EXPECT_EQ(gpuMatcher.floatPath(), !c.coreOnly && caps.has(gpu::Extension::OesTextureFloat));
  EXPECT_EQ(gpuMatcher.mergePath(), expectsMergePath(caps, options));
  gpuMatcher.setTarget(targets);
  CpuMatcher cpuMatcher;
  cpuMatcher.setTarget(targets);

  const std::vector<Match> gpu = gpuMatcher.nearest(onGpu);
  EXPECT_LE(gpuMatcher.lastReadbackBytes(), 8u * static_cast<size_t>(onGpu.count));
  const std::vector<Match> cpu = cpuMatcher.nearest(queries);
  const Agreement a = compare(gpu, cpu, c.tolerance);
  EXPECT_GE(a.fraction(), 0.99) << a.sameIndex << " same, " << a.ties << " ties of " << a.queries;
  EXPECT_LE(a.maxD1Error, c.tolerance);
  EXPECT_LE(a.maxD2Error, c.tolerance);
  std::cout << "[ agreement ] " << a.sameIndex << " same index, " << a.ties << " ties, of " << a.queries
            << "; max |d1 error| " << a.maxD1Error << ", max |d2 error| " << a.maxD2Error << "\n";

  // The ratio test on the same lane: every kept match passes, every rejected one fails.
  const std::vector<Match> kept = gpuMatcher.match(onGpu);
  int passing = 0;
  for (const Match& m : gpu) passing += passesRatio(m, 0.8f) ? 1 : 0;
  EXPECT_EQ(static_cast<int>(kept.size()), passing);
  for (const Match& m : kept) EXPECT_LT(m.distance, 0.8f * m.secondDistance) << "query " << m.query;
  const std::vector<Match> cpuKept = cpuMatcher.match(queries);
  EXPECT_NEAR(static_cast<double>(kept.size()), static_cast<double>(cpuKept.size()), 0.01 * 1000);
  EXPECT_GT(kept.size(), 50u);  // graf 1-3 has real correspondences
}

INSTANTIATE_TEST_SUITE_P(Paths, GpuMatcherGrafTest,
                         ::testing::Values(PathCase{DescriptorStorage::Float, false, true, 1e-3},
                                           PathCase{DescriptorStorage::Float, false, false, 1e-3},
                                           PathCase{DescriptorStorage::Rgba8, true, true, 1e-3}),
                         pathName);

// --- Synthetic descriptors: tiling, large targets, signs ---------------------------------------

class GpuMatcherTest : public GpuTest {
 protected:
  void expectAgreement(GpuMatcher& gpuMatcher, const cv::Mat& targets, const cv::Mat& queries, double tolerance,
                       const LaplacianSigns& targetSigns = {}, const LaplacianSigns& querySigns = {}) {
    gpuMatcher.setTarget(targets, targetSigns);
    CpuMatcher cpuMatcher;
    cpuMatcher.setTarget(targets, targetSigns);
    const Agreement a =
        compare(gpuMatcher.nearest(queries, querySigns), cpuMatcher.nearest(queries, querySigns), tolerance);
    EXPECT_GE(a.fraction(), 0.99) << a.sameIndex << " same, " << a.ties << " ties of " << a.queries;
    EXPECT_LE(a.maxD1Error, tolerance);
    EXPECT_LE(a.maxD2Error, tolerance);
  }
};

TEST_F(GpuMatcherTest, MatchesTargetsSpanningSeveralPasses) {
  const cv::Mat targets = randomUnit(1000, 64, 1);
  const cv::Mat queries = noisyCopies(targets, 300, 0.05, 2);
  for (const MatcherPath& path : kPaths) {
    for (int perFragment : {4, 8}) {
      GpuMatcherOptions options;
      options.maxQueries = 300;
      options.queriesPerFragment = perFragment;
      options.tileSize = perFragment == 4 ? 32 : 16;
      options.maxTilesPerPass = 3;  // 32 or 63 tiles: 11 or 21 scan/merge (reduce) rounds
      options.drawBuffers = path.drawBuffers;
      options.forceRgba8 = path.forceRgba8;
      GpuMatcher matcher(caps(), options);
      SCOPED_TRACE(std::string(path.name) + ", queries per fragment " + std::to_string(perFragment));
      EXPECT_EQ(matcher.mergePath(), expectsMergePath(caps(), options));
      expectAgreement(matcher, targets, queries, 1e-3);
    }
  }
}

// The global second-nearest may sit in the nearest's own tile: the merge path's scan keeps each
// tile's second-nearest for it, the reduce/refine path's refine pass scans the winning tile
// again. Here every target has a near twin right after it (same tile), so each query's
// second-nearest is its nearest's twin and d2 is right only if that works. 301 queries leave the
// last scan group part empty; small tiles and few tiles per pass exercise the merge with the
// previous round's result.
TEST_F(GpuMatcherTest, FindsTheSecondNearestInsideTheWinningTile) {
  const cv::Mat base = randomUnit(200, 64, 20);
  cv::Mat targets(400, 64, CV_32F);
  cv::RNG rng(21);
  for (int i = 0; i < base.rows; ++i) {
    base.row(i).copyTo(targets.row(2 * i));
    cv::Mat noise(1, 64, CV_32F);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, 0.03);  // twin distance ≈ 0.24, random pairs ≈ 1.4
    cv::normalize(base.row(i) + noise, targets.row(2 * i + 1));
  }
  const cv::Mat queries = noisyCopies(targets, 301, 0.01, 22);
  CpuMatcher cpuMatcher;
  cpuMatcher.setTarget(targets);
  const std::vector<Match> cpu = cpuMatcher.nearest(queries);
  int sameTile = 0;
  for (const Match& m : cpu) sameTile += std::isfinite(m.secondDistance) && m.secondDistance < 0.6f ? 1 : 0;
  ASSERT_GT(sameTile, 250);  // the construction works: most second-nearest are the twins
  for (const MatcherPath& path : kPaths) {
    for (int perFragment : {4, 8}) {
      GpuMatcherOptions options;
      options.maxQueries = 301;
      options.queriesPerFragment = perFragment;
      options.tileSize = 16;
      options.maxTilesPerPass = 4;  // 25 tiles: 7 scan/merge (reduce) rounds
      options.drawBuffers = path.drawBuffers;
      options.forceRgba8 = path.forceRgba8;
      GpuMatcher matcher(caps(), options);
      SCOPED_TRACE(std::string(path.name) + ", queries per fragment " + std::to_string(perFragment));
      EXPECT_EQ(matcher.mergePath(), expectsMergePath(caps(), options));
      // A twin missed would put d2 near a random pair's 1.4, not the twin's 0.24.
      expectAgreement(matcher, targets, queries, 1e-3);
    }
  }
}

TEST_F(GpuMatcherTest, Matches8192TargetsAndSurf36) {
  const cv::Mat targets = randomUnit(8192, 64, 3);
  const cv::Mat queries = noisyCopies(targets, 1000, 0.1, 4);
  for (const bool drawBuffers : {true, false}) {
    GpuMatcherOptions options;
    options.maxQueries = 4096;
    options.drawBuffers = drawBuffers;
    GpuMatcher matcher(caps(), options);
    SCOPED_TRACE(matcher.mergePath() ? "merge" : "reduce+refine");
    expectAgreement(matcher, targets, queries, 1e-3);
    const cv::Mat targets36 = randomUnit(2000, 36, 5);
    expectAgreement(matcher, targets36, noisyCopies(targets36, 1500, 0.1, 6), 1e-3);
  }
}

TEST_F(GpuMatcherTest, SkipsPairsWithDifferentLaplacianSigns) {
  const cv::Mat targets = randomUnit(500, 64, 7);
  const cv::Mat queries = noisyCopies(targets, 400, 0.05, 8);
  cv::RNG rng(9);
  LaplacianSigns targetSigns(500), querySigns(400);
  for (auto& s : targetSigns) s = static_cast<std::int8_t>(rng.uniform(-1, 2));
  for (auto& s : querySigns) s = static_cast<std::int8_t>(rng.uniform(-1, 2));
  for (const MatcherPath& path : kPaths) {
    GpuMatcherOptions options;
    options.drawBuffers = path.drawBuffers;
    options.forceRgba8 = path.forceRgba8;
    GpuMatcher matcher(caps(), options);
    SCOPED_TRACE(path.name);
    expectAgreement(matcher, targets, queries, 1e-3, targetSigns, querySigns);
    for (const Match& m : matcher.nearest(queries, querySigns)) {
      if (m.target >= 0) {
        EXPECT_GE(querySigns[static_cast<size_t>(m.query)] * targetSigns[static_cast<size_t>(m.target)], 0);
      }
    }
  }
}

TEST_F(GpuMatcherTest, HandlesZeroRowsAndSingleTargets) {
  cv::Mat targets = randomUnit(50, 64, 10);
  targets.row(7).setTo(0);  // a uniform patch's descriptor
  expectAgreement(*std::make_unique<GpuMatcher>(caps()), targets, noisyCopies(targets, 60, 0.1, 11), 1e-3);
  GpuMatcher matcher(caps());
  const cv::Mat one = randomUnit(1, 64, 12);
  matcher.setTarget(one);
  const std::vector<Match> m = matcher.nearest(noisyCopies(one, 3, 0.1, 13));
  ASSERT_EQ(m.size(), 3u);
  for (const Match& x : m) {
    EXPECT_EQ(x.target, 0);
    EXPECT_EQ(x.secondDistance, kNoDistance);
    EXPECT_TRUE(passesRatio(x, 0.8f));
  }
}

TEST_F(GpuMatcherTest, EmptyQueriesOrTargetsGiveNoMatches) {
  GpuMatcher matcher(caps());
  const cv::Mat targets = randomUnit(10, 64, 14);
  EXPECT_TRUE(matcher.nearest(targets).empty());  // no target yet
  matcher.setTarget(cv::Mat());
  EXPECT_TRUE(matcher.match(targets).empty());
  matcher.setTarget(targets);
  EXPECT_TRUE(matcher.match(cv::Mat()).empty());
  EXPECT_TRUE(matcher.match(GpuDescriptors{}).empty());
  CpuMatcher cpu;
  EXPECT_TRUE(cpu.match(targets).empty());
  cpu.setTarget(targets);
  EXPECT_TRUE(cpu.match(cv::Mat(0, 64, CV_32F)).empty());
}

TEST_F(GpuMatcherTest, RejectsBadDescriptorsNamingThem) {
  GpuMatcher matcher(caps());
  CpuMatcher cpu;
  auto expectMessage = [](auto&& fn, const std::string& needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception, expected one naming " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectMessage([&] { matcher.setTarget(cv::Mat::zeros(4, 32, CV_32F)); }, "length 32");
  expectMessage([&] { cpu.setTarget(cv::Mat::zeros(4, 64, CV_64F)); }, "type");
  matcher.setTarget(randomUnit(4, 64, 15));
  expectMessage([&] { matcher.nearest(randomUnit(4, 36, 16)); }, "length 36");
  expectMessage([&] { matcher.nearest(randomUnit(4, 64, 16), LaplacianSigns{1}); }, "signs");
  expectMessage([&] { matcher.setTarget(randomUnit(2, 64, 17), LaplacianSigns{1, 3}); }, "sign 3");
  MatchOptions bad;
  bad.ratio = 1.5f;
  expectMessage([&] { matcher.match(randomUnit(4, 64, 16), bad); }, "ratio");
  const auto withOptions = [](int perFragment, int tile) {
    GpuMatcherOptions o;
    o.queriesPerFragment = perFragment;
    o.tileSize = tile;
    return o;
  };
  expectMessage([&] { GpuMatcher(caps(), withOptions(2, 0)); }, "queriesPerFragment 2 is not 4 or 8");
  GpuMatcherOptions reduceRefine = withOptions(8, 128);
  reduceRefine.drawBuffers = false;  // RGBA16F partials hold 8 indices of 6 bits
  expectMessage([&] { GpuMatcher(caps(), reduceRefine); },
                caps().halfFloatRenderable ? "tileSize 128 is not 0 (auto) or in [2, 64]"
                                           : "tileSize 128 is not 0 (auto) or in [2, 16]");
  expectMessage([&] { GpuMatcher(caps(), withOptions(8, 512)); }, "tileSize 512 is not 0 (auto) or in [2, ");
  GpuMatcherOptions rgba8 = withOptions(8, 32);
  rgba8.forceRgba8 = true;  // RGBA8 partials hold 8 indices of 4 bits
  expectMessage([&] { GpuMatcher(caps(), rgba8); }, "tileSize 32 is not 0 (auto) or in [2, 16]");
  expectMessage([&] { GpuMatcher(caps(), withOptions(4, 512)); }, "tileSize 512 is not 0 (auto) or in [2, 256]");
  // A GPU whose textures are too small for the partials (a column per query group, a row per
  // tile of a pass): 4096 queries in groups of 8 need 512 columns.
  gpu::Capabilities smallTextures = caps();
  smallTextures.maxTextureSize = 256;
  expectMessage([&] { GpuMatcher(smallTextures, withOptions(8, 0)); },
                "maxQueries 4096 and maxTilesPerPass 64 need a partials texture of 512 × 64, more than this "
                "GPU's maximum texture size 256");
  GpuMatcherOptions small;
  small.maxQueries = 2;
  GpuMatcher tiny(caps(), small);
  tiny.setTarget(randomUnit(4, 64, 15));
  expectMessage([&] { tiny.nearest(randomUnit(3, 64, 16)); }, "3 queries");
}

// --- Ratio test and cross-check (match.h) -------------------------------------------------------

TEST(MatchFilterTest, RatioTestKeepsExactlyThePassingPairs) {
  const std::vector<Match> nearest = {{0, 3, 0.5f, 0.7f}, {1, 4, 0.5f, 0.6f},   {2, 5, 0.2f, kNoDistance},
                                      {3, -1, kNoDistance, kNoDistance},       {4, 1, 0.4f, 0.5f}};
  const std::vector<Match> kept = ratioTest(nearest, 0.8f);
  ASSERT_EQ(kept.size(), 2u);  // 0.5/0.7 = 0.71 passes, 0.83 fails, no second passes, none fails, 0.8 fails
  EXPECT_EQ(kept[0].query, 0);
  EXPECT_EQ(kept[1].query, 2);
  EXPECT_THROW(ratioTest(nearest, 0.0f), std::invalid_argument);
}

TEST(MatchFilterTest, CrossCheckKeepsMutualNearestNeighbours) {
  const std::vector<Match> matches = {{0, 1, 0.1f, 0.5f}, {1, 1, 0.2f, 0.5f}, {2, 0, 0.1f, 0.5f}};
  const std::vector<Match> kept = crossCheck(matches, {2, 0});
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].query, 0);
  EXPECT_EQ(kept[1].query, 2);
  EXPECT_THROW(crossCheck(matches, {2}), std::invalid_argument);
}

TEST_F(GpuMatcherTest, CrossCheckAgreesWithTheCpuMatcher) {
  const cv::Mat targets = randomUnit(600, 64, 18);
  const cv::Mat queries = noisyCopies(targets, 500, 0.15, 19);
  GpuMatcher gpuMatcher(caps());
  gpuMatcher.setTarget(targets);
  CpuMatcher cpuMatcher;
  cpuMatcher.setTarget(targets);
  MatchOptions options;
  options.crossCheck = true;
  const std::vector<Match> gpu = gpuMatcher.match(queries, options);
  const std::vector<Match> cpu = cpuMatcher.match(queries, options);
  EXPECT_NEAR(static_cast<double>(gpu.size()), static_cast<double>(cpu.size()), 5.0);
  EXPECT_LT(cpu.size(), cpuMatcher.match(queries).size() + 1);
  EXPECT_THROW(gpuMatcher.match(GpuDescriptors{}, options), std::invalid_argument);
}

}  // namespace
}  // namespace nft::detection
