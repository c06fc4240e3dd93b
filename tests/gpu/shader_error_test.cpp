// Shader errors name the shader piece, its line and the offending source.

#include <string>

#include "gpu/gpu_error.h"
#include "gpu/program.h"
#include "gpu_test.h"

namespace nft::gpu::testing {
namespace {

TEST(ShaderLog, FindsTheErrorLineInEachDriversFormat) {
  EXPECT_EQ(firstErrorLine("0:12(5): error: `x' undeclared\n"), 12);                    // Mesa
  EXPECT_EQ(firstErrorLine("0(7) : error C1008: undefined variable \"x\"\n"), 7);       // NVIDIA
  EXPECT_EQ(firstErrorLine("ERROR: 0:31: 'x' : undeclared identifier\n"), 31);         // ARM, Qualcomm
  // A warning before the error does not win; a log with no location gives 0.
  EXPECT_EQ(firstErrorLine("0:3(1): warning: unused\n0:9(2): error: syntax error\n"), 9);
  EXPECT_EQ(firstErrorLine("Compile failed.\n"), 0);
  EXPECT_EQ(firstErrorLine("L0001 error in vec3 (no location)\n"), 0);
}

using ShaderErrorTest = GpuTest;

// Line 4 uses an undeclared identifier (line 1 is the empty line after R"( ).
const ShaderSource kBadFragment{"tests/bad_syntax.frag.glsl", R"(
void main() {
  vec4 c = vec4(1.0);
  gl_FragColor = c * not_declared_anywhere;
}
)"};

TEST_F(ShaderErrorTest, CompileErrorNamesShaderLineAndSource) {
  try {
    // The piece comes after gpu/prelude.glsl and gpu/quad_pass.glsl: its line numbers must
    // be mapped back from the assembled source.
    QuadPass::makeProgram("bad_pass", {kBadFragment});
    FAIL() << "a shader with an undeclared identifier compiled";
  } catch (const ShaderError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.piece(), "tests/bad_syntax.frag.glsl") << msg;
    EXPECT_EQ(e.line(), 4) << msg;
    EXPECT_NE(msg.find("shader 'tests/bad_syntax.frag.glsl' line 4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gl_FragColor = c * not_declared_anywhere;"), std::string::npos) << msg;
    EXPECT_NE(msg.find("program 'bad_pass'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("driver log"), std::string::npos) << msg;
  }
}

TEST_F(ShaderErrorTest, SyntaxErrorInVertexShaderIsMappedToo) {
  const ShaderSource vertex{"tests/bad.vert.glsl", "attribute vec2 a_position;\nvoid main() {\n  gl_Position = vec4(a_position, 0.0, 1.0)\n  }\n"};
  const ShaderSource fragment{"tests/ok.frag.glsl", "void main() { gl_FragColor = vec4(1.0); }\n"};
  try {
    Program("bad_vertex", {vertex}, {fragment});
    FAIL();
  } catch (const ShaderError& e) {
    EXPECT_EQ(e.piece(), "tests/bad.vert.glsl") << e.what();
    // The missing ';' of line 3 is reported on line 3 or at the next token, line 4.
    EXPECT_GE(e.line(), 3) << e.what();
    EXPECT_LE(e.line(), 4) << e.what();
    EXPECT_NE(std::string(e.what()).find("vertex shader"), std::string::npos) << e.what();
  }
}

TEST_F(ShaderErrorTest, LinkErrorNamesProgramAndPieces) {
  // The varying's type differs between the stages: each compiles, the link fails.
  const ShaderSource vertex{"tests/vec2_varying.vert.glsl",
                            "attribute vec2 a_position;\nvarying vec2 v_value;\n"
                            "void main() { v_value = a_position; gl_Position = vec4(a_position, 0.0, 1.0); }\n"};
  const ShaderSource fragment{"tests/vec3_varying.frag.glsl",
                              "precision mediump float;\nvarying vec3 v_value;\n"
                              "void main() { gl_FragColor = vec4(v_value, 1.0); }\n"};
  try {
    Program("mismatched", {vertex}, {fragment});
    FAIL();
  } catch (const ShaderError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("program 'mismatched' does not link"), std::string::npos) << msg;
    EXPECT_NE(msg.find("tests/vec3_varying.frag.glsl"), std::string::npos) << msg;
  }
}

TEST_F(ShaderErrorTest, DefinesComeBeforeThePieces) {
  // A piece that only compiles when the define is present.
  const ShaderSource needsDefine{"tests/needs_define.frag.glsl",
                                 "void main() { gl_FragColor = vec4(VALUE); }\n"};
  EXPECT_NO_THROW(QuadPass::makeProgram("with_define", {needsDefine}, {"VALUE 0.5"}));
  EXPECT_THROW(QuadPass::makeProgram("without_define", {needsDefine}), ShaderError);
}

}  // namespace
}  // namespace nft::gpu::testing
