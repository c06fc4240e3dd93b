#pragma once
// Fixture of the GPU tests: a headless ES 2.0 context (llvmpipe without a GPU), the probe's
// capabilities and a quad-pass runner, made fresh for each test. Never skipped: a machine
// without a context fails these tests.

#include <gtest/gtest.h>

#include <optional>

#include "gpu/capabilities.h"
#include "gpu/context.h"
#include "gpu/quad_pass.h"

namespace nft::gpu::testing {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    context_.emplace(Context::createHeadless());
    caps_ = probeCapabilities();
    quad_.emplace();
  }
  void TearDown() override {
    quad_.reset();  // GL objects go before their context
    context_.reset();
  }
  const Capabilities& caps() const { return caps_; }
  const QuadPass& quad() const { return *quad_; }

 private:
  std::optional<Context> context_;
  Capabilities caps_;
  std::optional<QuadPass> quad_;
};

}  // namespace nft::gpu::testing
