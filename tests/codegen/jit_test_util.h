// Helpers for the LLVM CPU backend tests: compile kernel IR text and call the result.
#pragma once

#include "engine/codegen/kernel_compiler.h"
#include "engine/kir/kernel_ir.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::codegen::testing {

// A compiled batch and its first kernel.
struct Jitted {
  std::shared_ptr<CompiledModule> module;
  const CompiledKernel& kernel() const { return module->kernels.front(); }
  // Runs the outermost loop over [begin, end).
  void run(std::vector<void*> buffers, int64_t begin, int64_t end) const { kernel().fn(buffers.data(), begin, end); }
};

inline Jitted jit(const std::string& text) {
  static std::unique_ptr<KernelCompiler> compiler = makeLlvmCpuCompiler();
  Jitted j{compiler->compile(kir::parseKernels(text), "test")};
  EXPECT_FALSE(j.module->kernels.empty());
  return j;
}

// Deterministic inputs in [lo, hi).
inline std::vector<float> ramp(size_t n, float lo, float hi) {
  std::vector<float> v(n);
  uint32_t s = 12345;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

}  // namespace kiln::codegen::testing
