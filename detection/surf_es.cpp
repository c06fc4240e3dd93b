#include "detection/surf_es.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "detection/nft_detection_shaders.h"
#include "gpu/capabilities.h"
#include "gpu/float_codec.h"
#include "gpu/framebuffer.h"
#include "gpu/gpu_timer.h"
#include "gpu/nft_gpu_shaders.h"
#include "gpu/program.h"
#include "gpu/quad_pass.h"
#include "gpu/rect_batch.h"
#include "gpu/texture.h"

namespace nft::detection {

namespace {

using gpu::Filter;
using gpu::Framebuffer;
using gpu::Program;
using gpu::QuadPass;
using gpu::Rect;
using gpu::RectBatch;
using gpu::Texture;
using gpu::TextureFormat;

// Level-of-detail bias of every box read from the pyramid: a trilinear lookup at level
// log2(side) averages over a wider footprint than the box (variance side²/4 instead of
// side²/12); reading log2(side) − log2(3)/2 matches the variance. Measured on graf img1,
// 1000 keypoints, against exact box means: mean cosine 0.9996 (bias 0: 0.9978).
constexpr float kLodBias = -0.79248125f;
// The same bias for the quarter boxes of boxTaps 2, chosen by the descriptor evaluation
// (nft_eval descriptors, 1000 keypoints, recall at 1 − precision = 0.2 averaged over the pairs,
// oriented / upright): −0.5 gives wall 15.6 / 37.8 %, bikes 29.8 / 32.4 %, graf 12.2 %, boat
// 32.6 % (the CPU lane: 15.2 / 36.5, 29.9 / 34.3, 12.2, 32.2; boxTaps 1: 12.9 / 31.1, 27.5 /
// 33.5, 11.5, 27.9); −0.79: 15.2 / 36.1, 29.1 / 31.8, 12.2, 31.9; −0.35: 15.9 / 37.7, 30.3 / 32.9;
// −1.0: 15.3 / 35.3, 27.0 / 32.8. A simulation of box means on wall img1 agrees: the quarter
// boxes' error against exact box means is smallest near −0.5 (12–18 % of a Haar response's RMS,
// against 27–38 % for one lookup per box).
constexpr float kQuarterBoxLodBias = -0.5f;
// The level of a box read from the box pyramid (QuarterBoxes::BoxPyramid). Its lookup at level
// k is four lookups at ±2^k / 2, so in each axis its footprint is two tents of half-width t = 2^k
// at ±t / 2: variance t²/4 + t²/6 = 5t²/12, which matches the box's s²/12 at level
// log2(s) − 1.16. Chosen instead by the descriptor evaluation, as kQuarterBoxLodBias was
// (nft_eval descriptors, 1000 keypoints, recall at 1 − precision = 0.2, oriented / upright;
// the CPU lane: wall 15.2 / 36.5 %, bikes 29.9 / 34.3 %, graf 12.2 %, boat 32.2 %):
// −0.79 (about the level boxTaps 1 reads, log2(s) − log2(3)/2): wall 18.9 / 40.7, bikes 30.2 / 35.3,
// graf 13.1, boat 31.6 (float and rgba8 alike, docs/results.md). The sweep, made before the
// levels had their margin (the border then read the first corner's mean for the missing one):
// −0.79: 18.5 / 40.7, 30.2 / 35.3, 12.9, 31.8; −0.95: 18.2 / 40.5, 30.0 / 34.7, 12.8, 32.1;
// −1.16: 14.8 / 38.4, 29.1 / 32.8, 12.5, 30.8; −1.4: 13.7 / 35.2, 29.6 / 32.2, 12.1, 29.3;
// −0.6: 18.3 / 40.9, 30.4 / 35.1, 12.6, 30.2; −0.4: 19.2 / 40.6, 29.7 / 35.3, 12.4, 30.3. The
// wider footprint smooths the Haar responses a little more than exact boxes do, which the
// matching prefers, and the coarser level reads fewer texels (llvmpipe's texture cache).
constexpr float kBoxPyramidLodBias = -0.79f;
// Keypoint blocks per row of every per-keypoint layout (lattice, sums, descriptors: a block of
// texels per keypoint; norms, orientations: one texel). Square blocks keep 2 × 2 fragment
// quads full, which halves the cost on llvmpipe against one-texel-wide columns.
constexpr int kBlocksPerRow = 64;

// A texture with its framebuffer.
struct Target {
  Texture texture;
  Framebuffer framebuffer;
  Target(const gpu::Capabilities& caps, int w, int h, TextureFormat format)
      : texture(caps, w, h, format), framebuffer(texture) {}
  void sampleAs(const Program& program, const std::string& sampler, int unit) const {
    program.setTexture(sampler, unit, texture);
    program.setUniform(sampler + "_size", static_cast<float>(texture.width()), static_cast<float>(texture.height()));
  }
};

}  // namespace

double SurfEsTimings::total() const {
  double sum = 0;
  for (double v : {pyramid, orientation, lattice, sums, norm, normalize, readback})
    if (std::isfinite(v)) sum += v;
  return sum;
}

struct SurfEs::Impl {
  gpu::Capabilities caps;
  SurfEsOptions options;
  DescriptorStorage storage = DescriptorStorage::Rgba8;
  int precision = 23;    // p of the RGBA8 encoding
  bool emulate = false;  // round intermediates to p bits
  int grid = 20, subregions = 4, bins = 64;
  // Block sides are even, so that 2 × 2 fragment quads never straddle two keypoints' blocks
  // (a straddling quad runs both rectangles' fragments half empty).
  int used = 8;          // texels per side a descriptor uses: sqrt(bins) (Rgba8) or subregions (Float)
  int block = 8;         // its block pitch: `used` rounded up to even
  int binsBlock = 8;     // side of the RGBA8 layout (sqrt(bins), even), also used for readback
  int latticeBlock = 22; // (grid + 1) rounded up to even

  QuadPass quad;
  std::optional<Program> grayProgram, halveProgram, orientationProgram, resolveProgram, latticeProgram, sumsProgram,
      normProgram, normalizeProgram, exportProgram;
  RectBatch orientationBatch, latticeBatch, sumsBatch;  // one rectangle per keypoint, with its data

  // Per-keypoint layouts: keypoint k owns block (k % kBlocksPerRow, k / kBlocksPerRow).
  // moments: four partial orientation moments per keypoint (a 2 × 2 block).
  std::optional<Target> lattice, sums, norms, descriptors, exported, moments, orientations;

  // Per image size: the pyramid atlas (RGBA8: llvmpipe filters it twice as fast as luminance)
  // and its levels, the scratch target passes render into before their result is copied into
  // the atlas (a pass cannot read the texture it writes), and the colour input texture.
  cv::Size imageSize;
  int imageChannels = 0;
  std::optional<Texture> pyramid, colourInput;
  std::optional<Target> scratch;
  std::vector<Rect> levels;  // level k's rectangle in the atlas
  // The box pyramid (QuarterBoxes::BoxPyramid with boxTaps 2) lives in the atlas's green
  // channel (surf_es_pyramid.glsl), each level with a margin of one texel before it (left and
  // top) for its first corner: level 0's made on the CPU with the upload, the others by the
  // halve pass, so it costs no pass of its own.
  bool boxPyramid = false;
  int margin = 0;  // 1 with the box pyramid
  cv::Mat rgba;              // a gray image expanded for upload

  bool profiling = false;
  SurfEsTimings timings;
  std::optional<gpu::GpuTimer> timer;

  Impl(const gpu::Capabilities& c, const SurfEsOptions& o);
  std::vector<std::string> defines() const;
  void prepareImage(const cv::Mat& image);
  void buildPyramid(const cv::Mat& image);
  void uploadGrayWithBoxes(const cv::Mat& image);
  std::array<float, 12> keypointData(const Keypoint& kp, int k) const;
  std::vector<RectBatch::Item> keypointItems(const std::vector<Keypoint>& keypoints, int width, int height,
                                             int blocksPerRow) const;
  void overKeypoints(int n, int side, const Program& program, const Target& target) const;
  GpuDescriptors run(const cv::Mat& image, const std::vector<Keypoint>& keypoints);
  template <typename Fn>
  void stage(double& slot, Fn&& fn);
};

SurfEs::Impl::Impl(const gpu::Capabilities& c, const SurfEsOptions& o) : caps(c), options(o) {
  if (o.maxWidth < 1 || o.maxHeight < 1 || o.maxKeypoints < 1)
    throw std::invalid_argument("SurfEs: maxWidth, maxHeight and maxKeypoints must be positive (got " +
                                std::to_string(o.maxWidth) + ", " + std::to_string(o.maxHeight) + ", " +
                                std::to_string(o.maxKeypoints) + ")");
  if (o.boxTaps != 1 && o.boxTaps != 2)
    throw std::invalid_argument("SurfEs: boxTaps must be 1 or 2, got " + std::to_string(o.boxTaps));
  if (o.quarterBoxes != QuarterBoxes::BoxPyramid && o.quarterBoxes != QuarterBoxes::Lookups)
    throw std::invalid_argument("SurfEs: quarterBoxes must be BoxPyramid or Lookups, got " +
                                std::to_string(static_cast<int>(o.quarterBoxes)));
  boxPyramid = o.boxTaps == 2 && o.quarterBoxes == QuarterBoxes::BoxPyramid;
  margin = boxPyramid ? 1 : 0;
  precision = gpu::resolvePrecisionBits(caps, o.precisionBits);  // throws for a bad override
  emulate = precision < gpu::resolvePrecisionBits(caps);

  const bool floatOk = caps.floatRenderable || caps.halfFloatRenderable;
  storage = o.storage;
  if (storage == DescriptorStorage::Auto) storage = floatOk ? DescriptorStorage::Float : DescriptorStorage::Rgba8;
  if (storage == DescriptorStorage::Float && !floatOk)
    throw std::invalid_argument(
        "SurfEs: Float storage needs a renderable float or half-float texture (OES_texture_float / "
        "OES_texture_half_float with a complete framebuffer), which this GPU does not offer; use Rgba8");
  const TextureFormat floatFormat = caps.floatRenderable ? TextureFormat::Rgba32F : TextureFormat::Rgba16F;

  grid = gridSize(o.type);
  subregions = subregionsPerSide(o.type);
  bins = descriptorLength(o.type);
  auto even = [](int v) { return v + (v & 1); };
  binsBlock = bins == 64 ? 8 : 6;
  used = storage == DescriptorStorage::Float ? subregions : binsBlock;
  block = even(used);
  latticeBlock = even(grid + 1);
  const int blocksWide = std::min(kBlocksPerRow, o.maxKeypoints);
  const int blockRows = (o.maxKeypoints + kBlocksPerRow - 1) / kBlocksPerRow;
  const TextureFormat work = storage == DescriptorStorage::Float ? floatFormat : TextureFormat::Rgba8;
  if (storage == DescriptorStorage::Rgba8)
    lattice.emplace(caps, blocksWide * latticeBlock, blockRows * latticeBlock, TextureFormat::Rgba8);
  sums.emplace(caps, blocksWide * block, blockRows * block, work);
  norms.emplace(caps, blocksWide, blockRows, work);
  descriptors.emplace(caps, blocksWide * block, blockRows * block, work);
  orientations.emplace(caps, blocksWide, blockRows, TextureFormat::Rgba8);
  if (o.orientation == Orientation::Oriented)
    moments.emplace(caps, 2 * blocksWide, 2 * blockRows, TextureFormat::Rgba8);
  if (storage == DescriptorStorage::Float)
    exported.emplace(caps, blocksWide * binsBlock, blockRows * binsBlock, TextureFormat::Rgba8);

  namespace gs = gpu::shaders;
  namespace ds = shaders;
  const std::vector<std::string> d = defines();
  std::vector<std::string> framed = d;  // passes that place the box lattice in the keypoint frame
  if (o.orientation == Orientation::Oriented) framed.push_back("NFT_ORIENTED");
  const std::vector<gpu::ShaderSource> keypointPieces{gs::float_codec, ds::surf_es_precision, ds::surf_es_pyramid,
                                                      ds::surf_es_keypoint_frame};
  auto withPieces = [](std::vector<gpu::ShaderSource> pieces, std::initializer_list<gpu::ShaderSource> more) {
    pieces.insert(pieces.end(), more);
    return pieces;
  };
  const std::vector<gpu::ShaderSource> codec{gs::float_codec, ds::surf_es_precision};

  grayProgram.emplace(QuadPass::makeProgram("surf_es_gray", {ds::surf_es_gray_frag}, d));
  halveProgram.emplace(QuadPass::makeProgram("surf_es_halve", {ds::surf_es_halve_frag}, d));
  orientationProgram.emplace(RectBatch::makeProgram(
      "surf_es_orientation", withPieces(keypointPieces, {ds::surf_es_orientation_frag}), d));
  resolveProgram.emplace(
      QuadPass::makeProgram("surf_es_orientation_resolve", {gs::float_codec, ds::surf_es_orientation_resolve_frag}, d));
  if (storage == DescriptorStorage::Rgba8) {
    latticeProgram.emplace(RectBatch::makeProgram(
        "surf_es_lattice", withPieces(keypointPieces, {ds::surf_es_lattice_frag}), framed));
    sumsProgram.emplace(QuadPass::makeProgram(
        "surf_es_sums", withPieces(codec, {ds::surf_es_subregion_sums, ds::surf_es_sums_rgba8_frag}), d));
  } else {
    sumsProgram.emplace(RectBatch::makeProgram(
        "surf_es_sums", withPieces(keypointPieces, {ds::surf_es_subregion_sums, ds::surf_es_sums_float_frag}),
        framed));
    exportProgram.emplace(QuadPass::makeProgram("surf_es_export", withPieces(codec, {ds::surf_es_export_frag}), d));
  }
  normProgram.emplace(QuadPass::makeProgram("surf_es_norm", withPieces(codec, {ds::surf_es_norm_frag}), d));
  normalizeProgram.emplace(
      QuadPass::makeProgram("surf_es_normalize", withPieces(codec, {ds::surf_es_normalize_frag}), d));
  for (const std::optional<Program>* p : {&orientationProgram, &latticeProgram, &sumsProgram, &normProgram,
                                          &normalizeProgram, &exportProgram}) {
    if (!p->has_value()) continue;
    const Program& program = **p;
    if (program.hasUniform("u_codec")) gpu::setCodecPrecision(program, precision);
    if (program.hasUniform("u_emulate_scale")) program.setUniform("u_emulate_scale", std::ldexp(1.0f, precision));
  }
}

std::vector<std::string> SurfEs::Impl::defines() const {
  auto real = [](int v) { return std::to_string(v) + ".0"; };
  std::vector<std::string> d = {"GRID " + real(grid),
                                "SIGMA " + std::to_string(gaussianSigma(options.type)),
                                "SUBREGIONS " + real(subregions),
                                "BLOCK " + real(block),
                                "USED_INT " + std::to_string(used),
                                "LATTICE_BLOCK " + real(latticeBlock),
                                "BINS_BLOCK " + real(binsBlock),
                                "MOMENT_SCALE 0.5",
                                "BOX_TAPS " + std::to_string(boxPyramid ? 1 : options.boxTaps)};
  if (boxPyramid) d.push_back("NFT_BOX_PYRAMID");
  if (storage == DescriptorStorage::Float) d.push_back("NFT_FLOAT_STORAGE");
  if (emulate) d.push_back("NFT_EMULATE_PRECISION");
  return d;
}

void SurfEs::Impl::prepareImage(const cv::Mat& image) {
  if (image.size() == imageSize && image.channels() == imageChannels && pyramid) return;
  imageSize = image.size();
  imageChannels = image.channels();
  if (imageChannels == 3) colourInput.emplace(caps, image.cols, image.rows, TextureFormat::Rgb8);
  // Level 0 at (0, 0); levels 1.. stacked in a column to its right, until 1 × 1.
  // (With the box pyramid every level has a margin texel column and row before it.)
  levels.assign(1, Rect{margin, margin, image.cols, image.rows});
  int y = margin;
  while (levels.back().width > 1 || levels.back().height > 1) {
    const Rect& last = levels.back();
    const Rect next{image.cols + 2 * margin, y, (last.width + 1) / 2, (last.height + 1) / 2};
    y += next.height + margin;
    levels.push_back(next);
  }
  const int column = levels.size() > 1 ? levels[1].width : 1;
  pyramid.emplace(caps, image.cols + 2 * margin + column, std::max(image.rows + margin, y), TextureFormat::Rgba8);
  pyramid->setFilter(Filter::Linear, Filter::Linear);
  scratch.emplace(caps, image.cols + margin, image.rows + margin, TextureFormat::Rgba8);
}

void SurfEs::Impl::buildPyramid(const cv::Mat& image) {
  // Level 0 with its margin (none without the box pyramid).
  const Rect withMargin{0, 0, image.cols + margin, image.rows + margin};
  if (image.channels() == 1 && boxPyramid) {
    uploadGrayWithBoxes(image);
  } else if (image.channels() == 1) {
    cv::cvtColor(image, rgba, cv::COLOR_GRAY2RGBA);  // gray needs no pass, only an upload
    pyramid->upload(rgba.data, levels[0]);
  } else {
    const cv::Mat continuous = image.isContinuous() ? image : image.clone();
    colourInput->upload(continuous.data);
    grayProgram->setTexture("u_image", 0, *colourInput);
    grayProgram->setUniform("u_image_size", static_cast<float>(image.cols), static_cast<float>(image.rows));
    quad.run(*grayProgram, scratch->framebuffer, withMargin);
    pyramid->copyFrom(scratch->framebuffer, withMargin, 0, 0);
  }
  const Program& halve = *halveProgram;
  halve.setTexture("u_atlas", 0, *pyramid);
  halve.setUniform("u_atlas_scale", 1.0f / static_cast<float>(pyramid->width()),
                   1.0f / static_cast<float>(pyramid->height()));
  for (size_t k = 1; k < levels.size(); ++k) {
    const Rect& source = levels[k - 1];
    const Rect& level = levels[k];
    halve.setUniform("u_source_origin", static_cast<float>(source.x), static_cast<float>(source.y));
    halve.setUniform("u_source_size", static_cast<float>(source.width), static_cast<float>(source.height));
    const Rect rendered{0, 0, level.width + margin, level.height + margin};
    quad.run(halve, scratch->framebuffer, rendered);
    pyramid->copyFrom(scratch->framebuffer, rendered, level.x - margin, level.y - margin);
  }
}

void SurfEs::Impl::uploadGrayWithBoxes(const cv::Mat& image) {
  // Texel (x, y) of the uploaded block, x in 0..W, y in 0..H: red, pixel (x − 1, y − 1) (the
  // margin repeats the edge; nothing reads it); green, box texel (x, y) of level 0 (its corner
  // (x, y)): the mean of pixels x − 1..x × y − 1..y, clamped to the image, rounded half up as
  // the gray pass rounds it for colour images.
  cv::Mat padded;
  cv::copyMakeBorder(image, padded, 1, 1, 1, 1, cv::BORDER_REPLICATE);
  rgba.create(image.rows + 1, image.cols + 1, CV_8UC4);
  for (int y = 0; y <= image.rows; ++y) {
    const std::uint8_t* above = padded.ptr<std::uint8_t>(y);
    const std::uint8_t* below = padded.ptr<std::uint8_t>(y + 1);
    cv::Vec4b* out = rgba.ptr<cv::Vec4b>(y);
    for (int x = 0; x <= image.cols; ++x) {
      const int sum = above[x] + above[x + 1] + below[x] + below[x + 1];
      const std::uint8_t gray = above[x];
      out[x] = {gray, static_cast<std::uint8_t>((sum + 2) >> 2), gray, gray};
    }
  }
  pyramid->upload(rgba.data, {0, 0, image.cols + 1, image.rows + 1});
}

std::array<float, 12> SurfEs::Impl::keypointData(const Keypoint& kp, int k) const {
  // The two levels around the boxes' level of detail (surf_es_pyramid.glsl).
  const int maxLevel = static_cast<int>(levels.size()) - 1;
  // With BOX_TAPS 2 each lookup reads a quarter box, of side s / 2; from the box pyramid, one
  // lookup reads the box of side s.
  const float side = boxPyramid ? kp.scale : kp.scale / static_cast<float>(options.boxTaps);
  const float bias = boxPyramid ? kBoxPyramidLodBias : options.boxTaps == 2 ? kQuarterBoxLodBias : kLodBias;
  const float lod = std::clamp(std::log2(side) + bias, 0.0f, static_cast<float>(maxLevel));
  const int k0 = static_cast<int>(lod), k1 = std::min(k0 + 1, maxLevel);
  const Rect& l0 = levels[static_cast<size_t>(k0)];
  const Rect& l1 = levels[static_cast<size_t>(k1)];
  return {kp.x + 0.5f, kp.y + 0.5f, kp.scale, lod - static_cast<float>(k0),
          static_cast<float>(l0.x), static_cast<float>(l0.y), std::ldexp(1.0f, -k0), static_cast<float>(k % kBlocksPerRow) + 0.5f,
          static_cast<float>(l1.x), static_cast<float>(l1.y), std::ldexp(1.0f, -k1), static_cast<float>(k / kBlocksPerRow) + 0.5f};
}

std::vector<RectBatch::Item> SurfEs::Impl::keypointItems(const std::vector<Keypoint>& keypoints, int width,
                                                         int height, int blocksPerRow) const {
  std::vector<RectBatch::Item> items(keypoints.size());
  for (size_t k = 0; k < keypoints.size(); ++k) {
    const int i = static_cast<int>(k);
    items[k] = {{(i % blocksPerRow) * width, (i / blocksPerRow) * height, width, height},
                keypointData(keypoints[k], i)};
  }
  return items;
}

void SurfEs::Impl::overKeypoints(int n, int side, const Program& program, const Target& target) const {
  // Full rows of blocks, then the partial last row: exactly the n keypoints' blocks.
  const int fullRows = n / kBlocksPerRow, rest = n % kBlocksPerRow;
  if (fullRows > 0) quad.run(program, target.framebuffer, {0, 0, kBlocksPerRow * side, fullRows * side});
  if (rest > 0) quad.run(program, target.framebuffer, {0, fullRows * side, rest * side, side});
}

template <typename Fn>
void SurfEs::Impl::stage(double& slot, Fn&& fn) {
  if (!profiling) {
    fn();
    return;
  }
  timer->begin();
  fn();
  slot = timer->endMs();
}

GpuDescriptors SurfEs::Impl::run(const cv::Mat& image, const std::vector<Keypoint>& keypoints) {
  if (image.empty() || image.cols < 1 || image.rows < 1)
    throw std::invalid_argument("SurfEs: the image is empty (0x0)");
  if (image.type() != CV_8UC1 && image.type() != CV_8UC3)
    throw std::invalid_argument("SurfEs: image type " + cv::typeToString(image.type()) +
                                " is not supported (expected CV_8UC1 gray or CV_8UC3 BGR)");
  if (image.cols > options.maxWidth || image.rows > options.maxHeight)
    throw std::invalid_argument("SurfEs: image " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                                " is larger than the " + std::to_string(options.maxWidth) + "x" +
                                std::to_string(options.maxHeight) + " it was built for");
  const int n = static_cast<int>(keypoints.size());
  if (n > options.maxKeypoints)
    throw std::invalid_argument("SurfEs: " + std::to_string(n) + " keypoints, more than the " +
                                std::to_string(options.maxKeypoints) + " it was built for");
  validateKeypoints(keypoints, image.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  timings = SurfEsTimings{};
  timings.orientation = timings.lattice = timings.readback = nan;

  GpuDescriptors out;
  out.texture = &descriptors->texture;
  out.count = n;
  out.blocksPerRow = kBlocksPerRow;
  out.blockSide = block;
  out.texelsPerSide = used;
  out.storage = storage;
  out.type = options.type;
  out.precisionBits = precision;

  prepareImage(image);
  stage(timings.pyramid, [&] { buildPyramid(image); });  // upload included
  if (n == 0) return out;

  auto setPyramid = [&](const Program& program) {
    program.setTexture("u_pyramid", 0, *pyramid);
    program.setUniform("u_pyramid_scale", 1.0f / static_cast<float>(pyramid->width()),
                       1.0f / static_cast<float>(pyramid->height()));
    program.setUniform("u_image_size", static_cast<float>(image.cols), static_cast<float>(image.rows));
  };
  const bool oriented = options.orientation == Orientation::Oriented;
  auto setFrame = [&](const Program& program) {
    setPyramid(program);
    if (oriented) orientations->sampleAs(program, "u_orientation", 1);
  };
  if (oriented) {
    stage(timings.orientation, [&] {
      std::vector<RectBatch::Item> items = keypointItems(keypoints, 2, 2, kBlocksPerRow);
      for (int k = 0; k < n; ++k) {  // data1.w: the given angle, or -1 to compute one
        const float angle = keypoints[static_cast<size_t>(k)].angle;
        items[static_cast<size_t>(k)].data[7] = angle >= 0.0f ? angle : -1.0f;
      }
      orientationBatch.set(items);
      setPyramid(*orientationProgram);
      orientationBatch.draw(*orientationProgram, moments->framebuffer);
      moments->sampleAs(*resolveProgram, "u_moments", 0);
      overKeypoints(n, 1, *resolveProgram, *orientations);
    });
  }
  if (storage == DescriptorStorage::Rgba8) {
    stage(timings.lattice, [&] {
      latticeBatch.set(keypointItems(keypoints, latticeBlock, latticeBlock, kBlocksPerRow));
      setFrame(*latticeProgram);
      latticeBatch.draw(*latticeProgram, lattice->framebuffer);
    });
    stage(timings.sums, [&] {
      lattice->sampleAs(*sumsProgram, "u_lattice", 0);
      overKeypoints(n, block, *sumsProgram, *sums);
    });
  } else {
    stage(timings.sums, [&] {
      sumsBatch.set(keypointItems(keypoints, block, block, kBlocksPerRow));
      setFrame(*sumsProgram);
      sumsBatch.draw(*sumsProgram, sums->framebuffer);
    });
  }
  stage(timings.norm, [&] {
    sums->sampleAs(*normProgram, "u_sums", 0);
    overKeypoints(n, 1, *normProgram, *norms);
  });
  stage(timings.normalize, [&] {
    sums->sampleAs(*normalizeProgram, "u_sums", 0);
    norms->sampleAs(*normalizeProgram, "u_norms", 1);
    overKeypoints(n, block, *normalizeProgram, *descriptors);
  });
  return out;
}

SurfEs::SurfEs(const gpu::Capabilities& caps, const SurfEsOptions& options)
    : impl_(std::make_unique<Impl>(caps, options)) {}
SurfEs::~SurfEs() = default;
SurfEs::SurfEs(SurfEs&&) noexcept = default;
SurfEs& SurfEs::operator=(SurfEs&&) noexcept = default;

GpuDescriptors SurfEs::extract(const cv::Mat& image, const std::vector<Keypoint>& keypoints) {
  return impl_->run(image, keypoints);
}

cv::Mat SurfEs::describe(const cv::Mat& image, std::vector<Keypoint>& keypoints) {
  Impl& m = *impl_;
  const GpuDescriptors gpuDescriptors = m.run(image, keypoints);
  const int n = gpuDescriptors.count;
  cv::Mat result(n, m.bins, CV_32F, cv::Scalar(0));
  if (n == 0) return result;
  m.stage(m.timings.readback, [&] {
    const int side = m.binsBlock;
    const int blocksWide = std::min(n, kBlocksPerRow);
    const int blockRows = (n + kBlocksPerRow - 1) / kBlocksPerRow;
    const Target* source = &*m.descriptors;
    if (m.storage == DescriptorStorage::Float) {
      m.descriptors->sampleAs(*m.exportProgram, "u_descriptors", 0);
      m.overKeypoints(n, side, *m.exportProgram, *m.exported);
      source = &*m.exported;
    }
    const int width = blocksWide * side;
    const std::vector<std::uint8_t> bytes = source->framebuffer.readRgba8({0, 0, width, blockRows * side});
    for (int k = 0; k < n; ++k) {
      const int x0 = (k % kBlocksPerRow) * side, y0 = (k / kBlocksPerRow) * side;
      float* row = result.ptr<float>(k);
      for (int b = 0; b < m.bins; ++b) {
        const int x = x0 + b % side, y = y0 + b / side;
        row[b] = gpu::decodeFloatRgba8(&bytes[static_cast<size_t>((y * width + x) * 4)], m.precision);
      }
    }
    if (m.options.orientation == Orientation::Oriented) {
      const std::vector<std::uint8_t> angles = m.orientations->framebuffer.readRgba8({0, 0, blocksWide, blockRows});
      for (int k = 0; k < n; ++k) {
        const size_t texel = static_cast<size_t>((k / kBlocksPerRow) * blocksWide + k % kBlocksPerRow);
        const std::array<float, 2> cs = gpu::decodePairRgba8(&angles[texel * 4]);
        double degrees = std::atan2(static_cast<double>(cs[1]), static_cast<double>(cs[0])) * 180.0 / CV_PI;
        if (degrees < 0.0) degrees += 360.0;
        keypoints[static_cast<size_t>(k)].angle = static_cast<float>(degrees >= 360.0 ? 0.0 : degrees);
      }
    }
  });
  return result;
}

DescriptorStorage SurfEs::storage() const { return impl_->storage; }
int SurfEs::precisionBits() const { return impl_->precision; }
const SurfEsOptions& SurfEs::options() const { return impl_->options; }
void SurfEs::setProfiling(bool on) {
  impl_->profiling = on;
  if (on && !impl_->timer) impl_->timer.emplace(impl_->caps);
}
const SurfEsTimings& SurfEs::lastTimings() const { return impl_->timings; }

}  // namespace nft::detection
