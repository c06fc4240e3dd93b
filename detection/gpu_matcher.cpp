#include "detection/gpu_matcher.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "detection/cpu_matcher.h"
#include "detection/nft_detection_shaders.h"
#include "gpu/capabilities.h"
#include "gpu/float_codec.h"
#include "gpu/framebuffer.h"
#include "gpu/nft_gpu_shaders.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/texture.h"

namespace nft::detection {

namespace {

using gpu::Framebuffer;
using gpu::Program;
using gpu::QuadPass;
using gpu::Rect;
using gpu::Texture;
using gpu::TextureFormat;

constexpr int kMaxTargets = 65535;    // 16-bit indices, 65535 = none
// Queries per row of the reduce's and refine's results: narrow and tall, because llvmpipe
// shares a pass out among its threads by 64×64 screen tiles (1000 queries in rows of 64 would
// be one tile, one core).
constexpr int kResultQueries = 8;
constexpr int kSignsPerRow = 64;      // queries per row of the query-sign texture
constexpr int kQueryBlocksPerRow = 64;  // SurfEs's layout, for uploaded queries
constexpr std::uint16_t kNoneCode = 65535;

struct Target {
  Texture texture;
  Framebuffer framebuffer;
  Target(const gpu::Capabilities& caps, int w, int h, TextureFormat format)
      : texture(caps, w, h, format), framebuffer(texture) {}
};

void sampleAs(const Program& program, const std::string& sampler, int unit, const Texture& texture) {
  program.setTexture(sampler, unit, texture);
  program.setUniform(sampler + "_size", static_cast<float>(texture.width()), static_cast<float>(texture.height()));
}

std::string real(int v) { return std::to_string(v) + ".0"; }

// The largest tile the scan's output can index: 8 queries share 4 channels, two per channel,
// as i₀ + base·i₁ (RGBA8: base 16 in a byte; RGBA16F: base 64, offset by −2048 so the 4096
// values fit the integers a half float holds exactly, −2048 .. 2048); 4 queries have a channel
// each (up to 256 in a byte, the cap anyway).
// On the merge path each query's index has a whole RGBA16F channel (up to 2048); 256 bounds the
// scan's loop.
int maxTileSize(int queriesPerFragment, bool halfPartials, bool mergePath) {
  if (queriesPerFragment == 4 || mergePath) return 256;
  return halfPartials ? 64 : 16;
}

// tileSize 0. Reduce/refine path: the power of two nearest √M within [8, the largest the scan
// can index]. The reduce costs N·M/T target reads and the refine N·T, so √M balances them;
// measured on llvmpipe (1000 queries, 8 per fragment, RGBA16F partials): M = 1000, T = 16 / 32
// / 64: 9.2 / 8.4 / 8.7 ms; M = 8192, T = 32 / 64: 58.5 / 54.3 ms.
// Merge path: the merge reads one texel per tile, and a scan fragment loads its queries once
// for T targets, so larger tiles cost less; but fewer tiles are fewer fragments for a GPU to
// run at once. The power of two nearest M / 16 (about 16 tiles) within [16, 256].
int autoTileSize(int count, int maxTile, bool mergePath) {
  const double want = mergePath ? count / 16.0 : std::sqrt(static_cast<double>(count));
  const int log2 = static_cast<int>(std::lround(std::log2(std::max(1.0, want))));
  return mergePath ? std::min(1 << std::clamp(log2, 4, 8), maxTile) : std::clamp(1 << std::clamp(log2, 3, 8), 8, maxTile);
}

std::uint16_t fixed16(float v, float offset, float scale) {
  const float c = std::round((v + offset) * scale);
  return static_cast<std::uint16_t>(std::clamp(c, 0.0f, 65535.0f));
}

}  // namespace

struct GpuMatcher::Impl {
  gpu::Capabilities caps;
  GpuMatcherOptions options;
  bool targetFloat = false;
  bool halfPartials = false;  // partials in RGBA16F (EXT_color_buffer_half_float), else RGBA8
  // The scan writes each query's nearest distances too (GL_EXT_draw_buffers, a partials texture
  // per query slot) and one merge pass follows; else the reduce and refine passes.
  bool mergePath = false;
  QuadPass quad;

  // Target database.
  int length = 0;  // D; 0 while empty
  int count = 0;   // M
  int tile = 0;    // descriptors per tile
  int texels = 0;  // K texels per descriptor
  int tiles = 0;
  bool useMeta = false;
  bool targetHasSigns = false;
  std::optional<Texture> targets, meta;
  cv::Mat targetCopy;  // for the cross-check's transposed search
  LaplacianSigns targetSigns;

  // Reduce/refine path: partials, resultA/B (ping-pong over rounds), refined. Merge path:
  // slotPartials (written together through scanOutput), resultA/B and distancesA/B (written
  // together through mergeOutputA/B).
  std::optional<Target> partials, resultA, resultB, refined, distancesA, distancesB;
  std::vector<Texture> slotPartials;
  std::optional<Framebuffer> scanOutput, mergeOutputA, mergeOutputB;
  std::optional<Texture> querySigns, uploaded;
  GpuDescriptors uploadedLayout;
  std::vector<float> uploadFloats;
  std::vector<std::uint8_t> uploadBytes;
  std::map<std::string, Program> programs;
  size_t readbackBytes = 0;

  Impl(const gpu::Capabilities& c, const GpuMatcherOptions& o);
  const Program& program(const std::string& name, const std::vector<gpu::ShaderSource>& own,
                         const std::vector<std::string>& d, bool codec, bool drawBuffers = false);
  std::vector<Match> run(const GpuDescriptors& queries, const LaplacianSigns& signs);
  GpuDescriptors upload(const cv::Mat& queries);
};

GpuMatcher::Impl::Impl(const gpu::Capabilities& c, const GpuMatcherOptions& o) : caps(c), options(o) {
  if (o.maxQueries < 1 || o.maxQueries > 65536)
    throw std::invalid_argument("GpuMatcher: maxQueries " + std::to_string(o.maxQueries) + " is not in [1, 65536]");
  if (o.queriesPerFragment != 4 && o.queriesPerFragment != 8)
    throw std::invalid_argument("GpuMatcher: queriesPerFragment " + std::to_string(o.queriesPerFragment) +
                                " is not 4 or 8");
  halfPartials = !o.forceRgba8 && caps.halfFloatRenderable;
  // The merge pass samples every slot's partials and the previous result (two textures).
  mergePath = o.drawBuffers && halfPartials && caps.has(gpu::Extension::ExtDrawBuffers) &&
              caps.maxDrawBuffers >= o.queriesPerFragment && caps.maxTextureImageUnits >= o.queriesPerFragment + 2;
  const int maxTile = maxTileSize(o.queriesPerFragment, halfPartials, mergePath);
  if (o.tileSize != 0 && (o.tileSize < 2 || o.tileSize > maxTile))
    throw std::invalid_argument("GpuMatcher: tileSize " + std::to_string(o.tileSize) + " is not 0 (auto) or in [2, " +
                                std::to_string(maxTile) + "] (" + std::to_string(o.queriesPerFragment) +
                                " queries per fragment)");
  if (o.maxTilesPerPass < 1 || o.maxTilesPerPass > 256)
    throw std::invalid_argument("GpuMatcher: maxTilesPerPass " + std::to_string(o.maxTilesPerPass) +
                                " is not in [1, 256]");
  targetFloat = !o.forceRgba8 && caps.has(gpu::Extension::OesTextureFloat);
  const int queryGroups = (o.maxQueries + o.queriesPerFragment - 1) / o.queriesPerFragment;
  // Partials: a column per query group, a row per tile of a pass. llvmpipe shares a pass out
  // among its threads by 64 × 64 screen tiles, so the shape decides how many threads work:
  // this one splits by query groups (two screen tiles for 1000 queries). Measured at
  // 1000 × 1000, it needs the same or less CPU than layouts with several rows per tile, some of
  // which fit one screen tile and ran on one thread.
  const int partialWidth = queryGroups, partialHeight = o.maxTilesPerPass;
  if (partialWidth > caps.maxTextureSize || partialHeight > caps.maxTextureSize)
    throw std::invalid_argument("GpuMatcher: maxQueries " + std::to_string(o.maxQueries) + " and maxTilesPerPass " +
                                std::to_string(o.maxTilesPerPass) + " need a partials texture of " +
                                std::to_string(partialWidth) + " × " + std::to_string(partialHeight) +
                                ", more than this GPU's maximum texture size " + std::to_string(caps.maxTextureSize));
  const int resultRows = (o.maxQueries + kResultQueries - 1) / kResultQueries;
  resultA.emplace(caps, kResultQueries, resultRows, TextureFormat::Rgba8);
  resultB.emplace(caps, kResultQueries, resultRows, TextureFormat::Rgba8);
  if (mergePath) {
    // Half floats: tile-local indices and d² split into exact parts (gpu_matcher_scan.frag.glsl).
    for (int slot = 0; slot < o.queriesPerFragment; ++slot)
      slotPartials.emplace_back(caps, partialWidth, partialHeight, TextureFormat::Rgba16F);
    std::vector<const Texture*> slots;
    for (const Texture& t : slotPartials) slots.push_back(&t);
    scanOutput.emplace(caps, slots);
    distancesA.emplace(caps, kResultQueries, resultRows, TextureFormat::Rgba8);
    distancesB.emplace(caps, kResultQueries, resultRows, TextureFormat::Rgba8);
    mergeOutputA.emplace(caps, std::vector<const Texture*>{&resultA->texture, &distancesA->texture});
    mergeOutputB.emplace(caps, std::vector<const Texture*>{&resultB->texture, &distancesB->texture});
  } else {
    // The partials hold small integers (tile-local indices), exact in RGBA8 on every GPU and in
    // RGBA16F within ±2048.
    partials.emplace(caps, partialWidth, partialHeight, halfPartials ? TextureFormat::Rgba16F : TextureFormat::Rgba8);
    refined.emplace(caps, kResultQueries, resultRows, TextureFormat::Rgba8);
  }
}

const Program& GpuMatcher::Impl::program(const std::string& name, const std::vector<gpu::ShaderSource>& own,
                                         const std::vector<std::string>& d, bool codec, bool drawBuffers) {
  std::string key = name;
  for (const std::string& s : d) key += "|" + s;
  auto found = programs.find(key);
  if (found != programs.end()) return found->second;
  std::vector<gpu::ShaderSource> pieces;
  if (codec) pieces.push_back(gpu::shaders::float_codec);
  pieces.push_back(shaders::gpu_matcher_common);
  pieces.insert(pieces.end(), own.begin(), own.end());
  std::vector<std::string> extensions;
  if (drawBuffers) extensions.emplace_back("GL_EXT_draw_buffers");
  return programs.emplace(key, QuadPass::makeProgram(name, pieces, d, extensions)).first->second;
}

GpuDescriptors GpuMatcher::Impl::upload(const cv::Mat& queries) {
  // SurfEs's layout (detection/surf_es.h, GpuDescriptors): float storage where float
  // textures can be sampled, else one codec-encoded bin per RGBA8 texel.
  const int n = queries.rows, d = queries.cols;
  GpuDescriptors g;
  g.count = n;
  g.type = d == 64 ? DescriptorType::Surf64 : DescriptorType::Surf36;
  g.blocksPerRow = kQueryBlocksPerRow;
  g.storage = targetFloat ? DescriptorStorage::Float : DescriptorStorage::Rgba8;
  g.texelsPerSide = targetFloat ? (d == 64 ? 4 : 3) : (d == 64 ? 8 : 6);
  g.blockSide = targetFloat ? 4 : g.texelsPerSide;
  g.precisionBits = gpu::resolvePrecisionBits(caps);
  const int blockRows = (options.maxQueries + kQueryBlocksPerRow - 1) / kQueryBlocksPerRow;
  const int width = kQueryBlocksPerRow * g.blockSide, height = blockRows * g.blockSide;
  const TextureFormat format = targetFloat ? TextureFormat::Rgba32F : TextureFormat::Rgba8;
  if (!uploaded || uploaded->format() != format || uploaded->width() != width || uploaded->height() != height)
    uploaded.emplace(caps, width, height, format);
  const int rows = (n + kQueryBlocksPerRow - 1) / kQueryBlocksPerRow;
  const Rect region{0, 0, width, rows * g.blockSide};
  const size_t texelCount = static_cast<size_t>(region.width) * static_cast<size_t>(region.height);
  for (int k = 0; k < n; ++k) {
    const float* row = queries.ptr<float>(k);
    const int x0 = (k % kQueryBlocksPerRow) * g.blockSide, y0 = (k / kQueryBlocksPerRow) * g.blockSide;
    if (targetFloat) {
      if (k == 0) uploadFloats.assign(texelCount * 4, 0.0f);
      for (int b = 0; b < d; ++b) {
        const int t = b / 4;
        const size_t texel = static_cast<size_t>((y0 + t / g.texelsPerSide) * width + x0 + t % g.texelsPerSide);
        uploadFloats[texel * 4 + static_cast<size_t>(b % 4)] = row[b];
      }
    } else {
      if (k == 0) uploadBytes.assign(texelCount * 4, 0);
      for (int b = 0; b < d; ++b) {
        const size_t texel = static_cast<size_t>((y0 + b / g.texelsPerSide) * width + x0 + b % g.texelsPerSide);
        const std::array<std::uint8_t, 4> c = gpu::encodeFloatRgba8(std::clamp(row[b], -1.0f, 1.0f), g.precisionBits);
        std::copy(c.begin(), c.end(), uploadBytes.begin() + static_cast<std::ptrdiff_t>(texel * 4));
      }
    }
  }
  if (n > 0) uploaded->upload(targetFloat ? static_cast<const void*>(uploadFloats.data()) : uploadBytes.data(), region);
  g.texture = &*uploaded;
  return g;
}

std::vector<Match> GpuMatcher::Impl::run(const GpuDescriptors& queries, const LaplacianSigns& signs) {
  const int n = queries.count;
  if (n < 0 || n > options.maxQueries)
    throw std::invalid_argument("GpuMatcher: " + std::to_string(n) + " queries, more than the " +
                                std::to_string(options.maxQueries) + " it was built for");
  validateSigns(signs, n, "GpuMatcher::nearest (query signs)");
  readbackBytes = 0;
  if (n == 0 || count == 0) return {};
  if (queries.texture == nullptr) throw std::invalid_argument("GpuMatcher: GpuDescriptors without a texture");
  if (descriptorLength(queries.type) != length)
    throw std::invalid_argument("GpuMatcher: query descriptor length " + std::to_string(descriptorLength(queries.type)) +
                                " differs from the target's " + std::to_string(length));
  if (queries.storage == DescriptorStorage::Auto)
    throw std::invalid_argument("GpuMatcher: GpuDescriptors storage must be Rgba8 or Float, not Auto");

  const bool withSigns = useMeta && targetHasSigns && !signs.empty() &&
                         std::any_of(signs.begin(), signs.end(), [](std::int8_t s) { return s != 0; });
  // Defines of gpu_matcher_common.glsl, shared by the scan and the reduce.
  std::vector<std::string> common = {
      "BINS_QUARTER " + std::to_string(length / 4),
      "TILE_F " + real(tile),
      "TEXELS " + std::to_string(texels),
      "TEXELS_F " + real(texels),
      "Q_SIDE " + real(queries.texelsPerSide),
      "Q_BLOCK " + real(queries.blockSide),
      "Q_BPR " + real(queries.blocksPerRow)};
  const bool queryFloat = queries.storage == DescriptorStorage::Float;
  if (queryFloat) common.emplace_back("QUERY_FLOAT");
  if (targetFloat) common.emplace_back("TARGET_FLOAT");
  if (useMeta) common.emplace_back("META");
  if (withSigns) common.emplace_back("QUERY_SIGNS");
  // How the scan packs indices into the partials, and how the reduce reads them back.
  common.emplace_back(halfPartials ? "PACK_BASE 64.0" : "PACK_BASE 16.0");
  common.emplace_back(halfPartials ? "PACK_OFFSET 2048.0" : "PACK_OFFSET 0.0");
  common.emplace_back(halfPartials ? "PARTIALS_SCALE 1.0" : "PARTIALS_SCALE 255.0");
  const int perFragment = options.queriesPerFragment;
  std::vector<std::string> scanDefines = common;
  scanDefines.push_back("TILE " + std::to_string(tile));
  scanDefines.push_back("QUERIES " + std::to_string(perFragment));
  if (mergePath) scanDefines.emplace_back("SCAN_DISTANCES");
  const Program& scan = program("gpu_matcher_scan", {shaders::gpu_matcher_scan_frag},
                                scanDefines, !queryFloat, mergePath);

  if (withSigns) {
    const int rows = (options.maxQueries + kSignsPerRow - 1) / kSignsPerRow;
    if (!querySigns) querySigns.emplace(caps, kSignsPerRow, rows, TextureFormat::Rgba8);
    std::vector<std::uint8_t> bytes(static_cast<size_t>(kSignsPerRow * rows * 4), 127);
    for (int q = 0; q < n; ++q) bytes[static_cast<size_t>(q) * 4] = static_cast<std::uint8_t>((signs[static_cast<size_t>(q)] + 1) * 127);
    querySigns->upload(bytes.data());
  }
  // The passes that read the queries (in registers) and targets read them the same way.
  auto readsDescriptors = [&](const Program& p) {
    if (!queryFloat) gpu::setCodecPrecision(p, queries.precisionBits);
    sampleAs(p, "u_queries", 0, *queries.texture);
    sampleAs(p, "u_targets", 1, *targets);
    if (useMeta) sampleAs(p, "u_meta", 2, *meta);
    if (withSigns) sampleAs(p, "u_query_signs", 3, *querySigns);
  };
  readsDescriptors(scan);

  const int perPass = options.maxTilesPerPass;
  const int queryGroups = (n + perFragment - 1) / perFragment;
  const int resultRowsFull = n / kResultQueries, restQueries = n % kResultQueries;
  // Runs `pass` over the first n texels of a result layout (kResultQueries per row).
  auto overQueries = [&](const Program& pass, const Framebuffer& output) {
    if (resultRowsFull > 0) quad.run(pass, output, {0, 0, kResultQueries, resultRowsFull});
    if (restQueries > 0) quad.run(pass, output, {0, resultRowsFull, restQueries, 1});
  };
  // The textures read back: the nearest index (and the candidates' second) and the distances.
  const Target* indexResult = nullptr;
  const Target* distanceResult = nullptr;
  if (mergePath) {
    std::vector<std::string> mergeDefines = common;
    mergeDefines.push_back("QUERIES " + std::to_string(perFragment));
    mergeDefines.push_back("MAX_TILES " + std::to_string(perPass));
    mergeDefines.push_back("RESULT_QUERIES " + real(kResultQueries));
    const Program& merge =
        program("gpu_matcher_merge", {shaders::gpu_matcher_merge_frag}, mergeDefines, !queryFloat, true);
    // Units 0, 1: the previous result; 2 .. 2 + QUERIES − 1: the partials (mergePath checked
    // the GPU has that many).
    for (int slot = 0; slot < perFragment; ++slot)
      merge.setTexture("u_partials" + std::to_string(slot), 2 + slot, slotPartials[static_cast<size_t>(slot)]);
    merge.setUniform("u_partials_size", static_cast<float>(slotPartials[0].width()),
                     static_cast<float>(slotPartials[0].height()));
    merge.setUniform("u_previous_size", static_cast<float>(kResultQueries), static_cast<float>(resultA->texture.height()));
    bool intoA = true;
    for (int first = 0, pass = 0; first < tiles; first += perPass, ++pass, intoA = !intoA) {
      const int p = std::min(perPass, tiles - first);
      scan.setUniform("u_scan", static_cast<float>(first), static_cast<float>(count));
      quad.run(scan, *scanOutput, {0, 0, queryGroups, p});
      merge.setUniform("u_merge", static_cast<float>(p), static_cast<float>(first), pass > 0 ? 1.0f : 0.0f, 0.0f);
      // The previous round's result: the other pair of textures (unused in the first round).
      merge.setTexture("u_previous_index", 0, intoA ? resultB->texture : resultA->texture);
      merge.setTexture("u_previous_distances", 1, intoA ? distancesB->texture : distancesA->texture);
      overQueries(merge, intoA ? *mergeOutputA : *mergeOutputB);
      indexResult = intoA ? &*resultA : &*resultB;
      distanceResult = intoA ? &*distancesA : &*distancesB;
    }
  } else {
    std::vector<std::string> reduceDefines = common;
    reduceDefines.push_back("QUERIES " + std::to_string(perFragment));
    reduceDefines.push_back("MAX_TILES " + std::to_string(perPass));
    reduceDefines.push_back("RESULT_QUERIES " + real(kResultQueries));
    const Program& reduce = program(
        "gpu_matcher_reduce", {shaders::gpu_matcher_exact, shaders::gpu_matcher_reduce_frag}, reduceDefines, !queryFloat);
    std::vector<std::string> refineDefines = common;
    refineDefines.push_back("TILE " + std::to_string(tile));
    refineDefines.push_back("RESULT_QUERIES " + real(kResultQueries));
    const Program& refine = program(
        "gpu_matcher_refine", {shaders::gpu_matcher_exact, shaders::gpu_matcher_refine_frag}, refineDefines, !queryFloat);
    readsDescriptors(reduce);
    readsDescriptors(refine);
    sampleAs(reduce, "u_partials", 4, partials->texture);
    reduce.setUniform("u_count", static_cast<float>(count));
    refine.setUniform("u_count", static_cast<float>(count));
    const Target* result = &*resultA;
    const Target* previous = &*resultB;
    for (int first = 0, pass = 0; first < tiles; first += perPass, ++pass) {
      const int p = std::min(perPass, tiles - first);
      scan.setUniform("u_scan", static_cast<float>(first), static_cast<float>(count));
      quad.run(scan, partials->framebuffer, {0, 0, queryGroups, p});
      reduce.setUniform("u_reduce", static_cast<float>(p), static_cast<float>(first), pass > 0 ? 1.0f : 0.0f, 0.0f);
      sampleAs(reduce, "u_previous", 5, previous->texture);
      overQueries(reduce, result->framebuffer);
      std::swap(result, previous);
    }
    sampleAs(refine, "u_result", 4, previous->texture);  // the last pass's output
    overQueries(refine, refined->framebuffer);
    indexResult = previous;
    distanceResult = &*refined;
  }

  // Read back the index and the distances: 4 + 4 bytes per query.
  auto readBack = [&](const Target& from) {
    std::vector<std::uint8_t> bytes;
    if (resultRowsFull > 0) bytes = from.framebuffer.readRgba8({0, 0, kResultQueries, resultRowsFull});
    if (restQueries > 0) {
      const std::vector<std::uint8_t> rest = from.framebuffer.readRgba8({0, resultRowsFull, restQueries, 1});
      bytes.insert(bytes.end(), rest.begin(), rest.end());
    }
    return bytes;
  };
  const std::vector<std::uint8_t> indices = readBack(*indexResult);
  const std::vector<std::uint8_t> distances = readBack(*distanceResult);
  readbackBytes = indices.size() + distances.size();
  std::vector<Match> out(static_cast<size_t>(n));
  for (int q = 0; q < n; ++q) {
    const std::uint8_t* a = &indices[static_cast<size_t>(q) * 4];
    const std::uint8_t* b = &distances[static_cast<size_t>(q) * 4];
    const int index = a[0] | (a[1] << 8);
    const int c1 = (b[0] << 8) | b[1];
    const int c2 = (b[2] << 8) | b[3];
    Match& m = out[static_cast<size_t>(q)];
    m.query = q;
    m.target = index == kNoneCode || c1 == kNoneCode ? -1 : index;
    m.distance = c1 == kNoneCode ? kNoDistance : static_cast<float>(c1) / 32767.5f;
    m.secondDistance = c2 == kNoneCode ? kNoDistance : static_cast<float>(c2) / 32767.5f;
  }
  return out;
}

GpuMatcher::GpuMatcher(const gpu::Capabilities& caps, const GpuMatcherOptions& options)
    : impl_(std::make_unique<Impl>(caps, options)) {}
GpuMatcher::~GpuMatcher() = default;
GpuMatcher::GpuMatcher(GpuMatcher&&) noexcept = default;
GpuMatcher& GpuMatcher::operator=(GpuMatcher&&) noexcept = default;

void GpuMatcher::setTarget(const cv::Mat& descriptors, const LaplacianSigns& signs) {
  Impl& m = *impl_;
  validateDescriptors(descriptors, "GpuMatcher::setTarget");
  validateSigns(signs, descriptors.rows, "GpuMatcher::setTarget");
  if (descriptors.rows > kMaxTargets)
    throw std::invalid_argument("GpuMatcher::setTarget: " + std::to_string(descriptors.rows) +
                                " target descriptors, more than the " + std::to_string(kMaxTargets) +
                                " 16-bit indices allow");
  m.targets.reset();
  m.meta.reset();
  m.count = 0;
  m.length = 0;
  m.targetCopy = descriptors.empty() ? cv::Mat() : descriptors.clone();
  m.targetSigns = signs;
  if (descriptors.empty()) return;

  const int d = descriptors.cols;
  m.length = d;
  m.count = descriptors.rows;
  m.texels = m.targetFloat ? d / 4 : d / 2;
  m.tile = std::min(m.options.tileSize > 0 ? m.options.tileSize
                                           : autoTileSize(m.count, maxTileSize(m.options.queriesPerFragment, m.halfPartials, m.mergePath), m.mergePath),
                    m.caps.maxTextureSize / m.texels);
  m.tiles = (m.count + m.tile - 1) / m.tile;
  if (m.tiles > m.caps.maxTextureSize)
    throw std::invalid_argument("GpuMatcher::setTarget: " + std::to_string(m.count) +
                                " descriptors need more tile rows than the GPU's texture size allows");
  const int width = m.tile * m.texels;
  const size_t values = static_cast<size_t>(width) * static_cast<size_t>(m.tiles) * 4;
  m.targetHasSigns = std::any_of(signs.begin(), signs.end(), [](std::int8_t s) { return s != 0; });
  bool unit = true;
  for (int i = 0; i < m.count && unit; ++i) {
    const double n2 = descriptors.row(i).dot(descriptors.row(i));
    unit = std::abs(n2 - 1.0) <= 1e-5;
  }
  m.useMeta = m.targetHasSigns || !unit;

  // Descriptor i: tile row i / tile, texels (i % tile)·K .. + K − 1 — in index order, so the
  // flat upload buffer is the descriptors' rows one after the other, padded at the end.
  if (m.targetFloat) {
    std::vector<float> data(values, 0.0f);
    for (int i = 0; i < m.count; ++i)
      std::copy_n(descriptors.ptr<float>(i), d, data.begin() + static_cast<std::ptrdiff_t>(i) * d);
    m.targets.emplace(m.caps, width, m.tiles, TextureFormat::Rgba32F, data.data());
  } else {
    std::vector<std::uint8_t> data(values, 0);
    for (int i = 0; i < m.count; ++i) {
      const float* row = descriptors.ptr<float>(i);
      std::uint8_t* out = data.data() + static_cast<size_t>(i) * static_cast<size_t>(d) * 2;
      for (int b = 0; b < d; ++b) {
        const std::uint16_t c = fixed16(std::clamp(row[b], -1.0f, 1.0f), 1.0f, 32767.5f);
        out[2 * b] = static_cast<std::uint8_t>(c >> 8);
        out[2 * b + 1] = static_cast<std::uint8_t>(c & 255);
      }
    }
    m.targets.emplace(m.caps, width, m.tiles, TextureFormat::Rgba8, data.data());
  }
  if (m.useMeta) {
    std::vector<std::uint8_t> data(static_cast<size_t>(m.tile) * static_cast<size_t>(m.tiles) * 4, 0);
    for (int i = 0; i < m.count; ++i) {
      const double n2 = descriptors.row(i).dot(descriptors.row(i));
      const std::uint16_t c = fixed16(static_cast<float>(std::min(n2, 1.99996)), 0.0f, 32768.0f);
      std::uint8_t* texel = &data[static_cast<size_t>(i) * 4];
      texel[0] = static_cast<std::uint8_t>(c >> 8);
      texel[1] = static_cast<std::uint8_t>(c & 255);
      texel[2] = static_cast<std::uint8_t>((signs.empty() ? 1 : signs[static_cast<size_t>(i)] + 1) * 127);
    }
    m.meta.emplace(m.caps, m.tile, m.tiles, TextureFormat::Rgba8, data.data());
  }
}

int GpuMatcher::targetCount() const { return impl_->count; }
bool GpuMatcher::floatPath() const { return impl_->targetFloat; }
bool GpuMatcher::mergePath() const { return impl_->mergePath; }
size_t GpuMatcher::lastReadbackBytes() const { return impl_->readbackBytes; }

std::vector<Match> GpuMatcher::nearest(const GpuDescriptors& queries, const LaplacianSigns& signs) {
  return impl_->run(queries, signs);
}

std::vector<Match> GpuMatcher::nearest(const cv::Mat& queries, const LaplacianSigns& signs) {
  Impl& m = *impl_;
  validateDescriptors(queries, "GpuMatcher::nearest", m.length);
  validateSigns(signs, queries.rows, "GpuMatcher::nearest (query signs)");
  if (queries.rows > m.options.maxQueries)
    throw std::invalid_argument("GpuMatcher: " + std::to_string(queries.rows) + " queries, more than the " +
                                std::to_string(m.options.maxQueries) + " it was built for");
  if (queries.empty() || m.count == 0) return {};
  return m.run(m.upload(queries), signs);
}

std::vector<Match> GpuMatcher::match(const GpuDescriptors& queries, const MatchOptions& options,
                                     const LaplacianSigns& signs) {
  validateMatchOptions(options);
  if (options.crossCheck)
    throw std::invalid_argument(
        "GpuMatcher::match: crossCheck needs the queries on the CPU (use match(cv::Mat) or CpuMatcher)");
  return ratioTest(nearest(queries, signs), options.ratio);
}

std::vector<Match> GpuMatcher::match(const cv::Mat& queries, const MatchOptions& options,
                                     const LaplacianSigns& signs) {
  validateMatchOptions(options);
  std::vector<Match> kept = ratioTest(nearest(queries, signs), options.ratio);
  if (!options.crossCheck || kept.empty()) return kept;
  // The transposed search on the GPU: the targets as queries against the queries as targets.
  Impl& m = *impl_;
  GpuMatcherOptions reverseOptions = m.options;
  reverseOptions.maxQueries = std::max(1, m.count);
  GpuMatcher reverse(m.caps, reverseOptions);
  reverse.setTarget(queries, signs);
  const std::vector<Match> back = reverse.nearest(m.targetCopy, m.targetSigns);
  std::vector<int> reverseNearest(back.size());
  for (size_t t = 0; t < back.size(); ++t) reverseNearest[t] = back[t].target;
  return crossCheck(kept, reverseNearest);
}

}  // namespace nft::detection
