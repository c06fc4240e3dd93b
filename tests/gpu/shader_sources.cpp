// nft_shader_sources OUT_DIR SOURCE_ROOT: writes every shader program the project builds, as the
// code assembles it, for the offline GLSL ES 1.00 check (tests/gpu/check_shaders.cmake runs the
// Khronos reference compiler glslangValidator on them; ctest -R shaders).
//
// The sources are not re-assembled here: gpu::setShaderSourceObserver() records what Program
// hands to glShaderSource while the real modules build their programs — SurfEs in every storage,
// descriptor type, orientation and precision, GpuMatcher over every query/target storage with and
// without the meta and sign textures, on the full and on the core-only capabilities, and the
// renderer with its overlay. Every distinct program goes to OUT_DIR as NAME-NN.vert +
// NAME-NN.frag, plus NAME-NN.nohighp.frag: the fragment stage with NFT_NO_HIGHP defined, which
// takes the path of a GPU without highp in fragment shaders (gpu/prelude.glsl).
//
// glslangValidator does not know GL_EXT_draw_buffers (the matcher's merge path writes
// gl_FragData[1..]): its "#extension GL_EXT_draw_buffers : require" line is written as the
// comment line kDrawBuffersMarker instead, and check_shaders.cmake checks such programs with
// MaxDrawBuffers 8 (the extension's limit on the GPUs we target) instead of GLES2's 1.
//
// With the GStreamer plugin built (NFT_SHADER_SOURCES_GST), nftgloverlay's passes (gst/) too.
//
// Exit status 1 when a *.glsl file under gpu/, detection/, render/, tracker/ (and gst/ with the
// plugin) of SOURCE_ROOT is in none of the recorded programs: a shader this program does not
// reach would go unchecked.

#include <GLES2/gl2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "detection/gpu_matcher.h"
#include "detection/surf_es.h"
#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "gpu/program.h"
#include "render/camera.h"
#include "render/renderer.h"
#ifdef NFT_SHADER_SOURCES_GST
#include "gpu/framebuffer.h"
#include "gpu/texture.h"
#include "gst/gl_colour_background.h"
#include "gst/gl_luma_pass.h"
#endif

namespace {

namespace fs = std::filesystem;
using namespace nft;

struct Recorded {
  std::string name;
  gpu::AssembledShader vertex, fragment;
};

/// Random unit rows, `n` × `length`.
cv::Mat unitRows(int n, int length, std::mt19937& rng) {
  cv::Mat m(n, length, CV_32F);
  std::normal_distribution<float> normal;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < length; ++j) m.at<float>(i, j) = normal(rng);
    m.row(i) /= cv::norm(m.row(i));
  }
  return m;
}

/// Every matcher program for queries `queries` (and the same on the CPU): targets of unit rows
/// without signs, with Laplacian signs (meta texture, query signs) and non-unit rows (meta).
void runMatchers(const gpu::Capabilities& caps, const detection::GpuDescriptors& queries, int length,
                 std::mt19937& rng) {
  const cv::Mat target = unitRows(24, length, rng);
  const cv::Mat cpuQueries = unitRows(queries.count, length, rng);
  const detection::LaplacianSigns targetSigns(static_cast<size_t>(target.rows), 1);
  const detection::LaplacianSigns querySigns(static_cast<size_t>(queries.count), -1);
  for (bool forceRgba8 : {false, true})
    for (int perFragment : {4, 8})
      for (bool drawBuffers : {true, false}) {
        detection::GpuMatcherOptions options;
        options.maxQueries = 64;
        options.forceRgba8 = forceRgba8;
        options.queriesPerFragment = perFragment;
        options.drawBuffers = drawBuffers;  // merge path where the GPU has it, reduce + refine otherwise
        detection::GpuMatcher matcher(caps, options);
        matcher.setTarget(target);
        matcher.nearest(queries);
        matcher.nearest(cpuQueries);
        matcher.setTarget(target, targetSigns);
        matcher.nearest(queries, querySigns);
        matcher.nearest(queries);
        matcher.setTarget(target * 0.5);
        matcher.nearest(queries);
      }
}

void exercise(const gpu::Capabilities& caps, std::mt19937& rng) {
  cv::Mat image(96, 128, CV_8UC3);
  cv::randu(image, cv::Scalar::all(0), cv::Scalar::all(255));
  const std::vector<detection::Keypoint> keypoints = {{40.f, 40.f, 2.f}, {64.5f, 50.f, 3.f}, {80.f, 45.f, 2.5f}};
  const bool floatOk = caps.floatRenderable || caps.halfFloatRenderable;
  for (auto storage : {detection::DescriptorStorage::Rgba8, detection::DescriptorStorage::Float}) {
    if (storage == detection::DescriptorStorage::Float && !floatOk) continue;
    for (auto type : {detection::DescriptorType::Surf64, detection::DescriptorType::Surf36})
      for (auto orientation : {detection::Orientation::Upright, detection::Orientation::Oriented})
        for (int precision : {0, 10})
          for (int boxes : {1, 2, 3}) {  // one lookup; quarter boxes from the box pyramid; four lookups
            const int boxTaps = boxes == 1 ? 1 : 2;
            detection::SurfEsOptions options;
            options.boxTaps = boxTaps;
            options.quarterBoxes =
                boxes == 3 ? detection::QuarterBoxes::Lookups : detection::QuarterBoxes::BoxPyramid;
            options.maxWidth = image.cols;
            options.maxHeight = image.rows;
            options.maxKeypoints = 64;
            options.type = type;
            options.orientation = orientation;
            options.storage = storage;
            options.precisionBits = precision;
            detection::SurfEs surf(caps, options);
            const detection::GpuDescriptors queries = surf.extract(image, keypoints);
            if (orientation == detection::Orientation::Oriented && precision == 0 && boxTaps == 1)
              runMatchers(caps, queries, detection::descriptorLength(type), rng);
          }
  }
  render::Camera camera;
  camera.K = cv::Matx33d(500, 0, 320, 0, 500, 240, 0, 0, 1);
  render::Renderer renderer(caps, camera, {0.2, 0.15});
#ifdef NFT_SHADER_SOURCES_GST
  // nftgloverlay's gpu-luma passes over a texture of ours (GStreamer's input texture in the element).
  // The programs above were deleted while one was current: GL_CURRENT_PROGRAM still names it, and
  // the passes' saved state would restore a name that no longer exists (GL_INVALID_VALUE).
  glUseProgram(0);
  gpu::Texture input(caps, 10, 6, gpu::TextureFormat::Rgba8);
  gst::GlLumaPass luma;
  std::vector<std::uint8_t> gray;
  luma.run(input.id(), input.width(), input.height(), gray);
  gpu::Texture output(caps, 10, 6, gpu::TextureFormat::Rgba8);
  const gpu::Framebuffer outputFramebuffer(output);
  gst::GlColourBackground colour;
  colour.bindTarget(input.width(), input.height());
  outputFramebuffer.bind();
  colour.composite(input.id());
  luma.release();
  colour.release();
#endif
}

const std::string kDrawBuffersExtension = "#extension GL_EXT_draw_buffers : require\n";
const std::string kDrawBuffersMarker = "// NFT_GL_EXT_draw_buffers (extension line removed for glslangValidator)\n";

/// `source` with its GL_EXT_draw_buffers directive replaced by kDrawBuffersMarker (see the top).
std::string forGlslang(std::string source) {
  const size_t at = source.find(kDrawBuffersExtension);
  if (at != std::string::npos) source.replace(at, kDrawBuffersExtension.size(), kDrawBuffersMarker);
  return source;
}

std::string withNoHighp(const std::string& source) {
  const size_t eol = source.find('\n');
  return source.substr(0, eol + 1) + "#define NFT_NO_HIGHP\n" + source.substr(eol + 1);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nft_shader_sources OUT_DIR SOURCE_ROOT\n");
    return 2;
  }
  const fs::path outDir = argv[1], root = argv[2];
  try {
    std::vector<Recorded> programs;
    std::set<std::string> seen;  // vertex + fragment sources already recorded
    std::optional<gpu::AssembledShader> pendingVertex;
    gpu::setShaderSourceObserver([&](const gpu::AssembledShader& shader) {
      if (!shader.fragment) {
        pendingVertex = shader;  // Program compiles the vertex stage, then the fragment stage
        return;
      }
      if (!pendingVertex || pendingVertex->program != shader.program)
        throw std::logic_error("fragment stage of '" + shader.program + "' without its vertex stage");
      if (seen.insert(pendingVertex->source + '\0' + shader.source).second)
        programs.push_back({shader.program, *pendingVertex, shader});
      pendingVertex.reset();
    });

    gpu::Context context = gpu::Context::createHeadless();
    std::mt19937 rng(7);
    exercise(gpu::probeCapabilities(), rng);
    exercise(gpu::probeCapabilities(/*coreOnly=*/true), rng);
    gpu::setShaderSourceObserver({});

    fs::remove_all(outDir);
    fs::create_directories(outDir);
    std::map<std::string, int> perName;
    std::set<std::string> usedPieces;
    for (const Recorded& p : programs) {
      char number[16];
      std::snprintf(number, sizeof number, "%02d", perName[p.name]++);
      const std::string stem = p.name + "-" + number;
      write(outDir / (stem + ".vert"), p.vertex.source);
      write(outDir / (stem + ".frag"), forGlslang(p.fragment.source));
      write(outDir / (stem + ".nohighp.frag"), withNoHighp(forGlslang(p.fragment.source)));
      usedPieces.insert(p.vertex.pieces.begin(), p.vertex.pieces.end());
      usedPieces.insert(p.fragment.pieces.begin(), p.fragment.pieces.end());
    }
    std::printf("%zu distinct programs (%zu names) from %zu shader files\n", programs.size(), perName.size(),
                usedPieces.size());

    std::vector<std::string> unreached;
#ifdef NFT_SHADER_SOURCES_GST
    const auto folders = {"gpu", "detection", "render", "tracker", "gst"};
#else
    const auto folders = {"gpu", "detection", "render", "tracker"};
#endif
    for (const char* folder : folders) {
      if (!fs::is_directory(root / folder)) continue;
      for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".glsl") continue;
        const std::string relative = fs::relative(entry.path(), root).generic_string();
        if (usedPieces.count(relative) == 0) unreached.push_back(relative);
      }
    }
    if (!unreached.empty()) {
      std::sort(unreached.begin(), unreached.end());
      std::fprintf(stderr, "shader files in no program built here (add them to tests/gpu/shader_sources.cpp):\n");
      for (const std::string& f : unreached) std::fprintf(stderr, "  %s\n", f.c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nft_shader_sources: %s\n", e.what());
    return 1;
  }
}
