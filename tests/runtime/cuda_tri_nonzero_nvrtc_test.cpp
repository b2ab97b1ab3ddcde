// tril / triu / nonzero's CUDA kernels where there is no GPU (their values are
// cuda_tri_nonzero_test.cpp's, label gpu): every entry point the runtime names for a dtype is in
// the unit, the unit compiles with NVRTC (skipped, saying so, without NVRTC), and the GPU test's
// script runs with the CPU as the device under test.
#include "engine/codegen/cuda/cuda_toolchain.h"
#include "engine/codegen/cuda/cuda_tri_nonzero_source.h"
#include "engine/codegen/kernel_compiler.h"
#include "tests/runtime/cuda_training_scripts.h"
#include "tests/runtime/cuda_tri_nonzero_scripts.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

namespace cg = codegen::cuda;

TEST(CudaTriNonzeroKernels, EveryDtypeHasEntryPointsThatNvrtcCompiles) {
  const std::string& src = cg::cudaTriNonzeroKernelsSource();
  std::vector<std::string> entries;
  for (ir::DType dt : ir::allDTypes()) {
    const std::string tri = cg::cudaTriangleSuffix(dt), nz = cg::cudaNonzeroSuffix(dt);
    ASSERT_FALSE(tri.empty()) << ir::shortName(dt);
    ASSERT_FALSE(nz.empty()) << ir::shortName(dt);
    for (const std::string& e : {"kiln_triangle_" + tri, "kiln_nonzero_count_" + nz, "kiln_nonzero_write_" + nz}) {
      EXPECT_NE(src.find(e + "("), std::string::npos) << e;
      entries.push_back(e);
    }
  }
  // Floating types test the bits without the sign (-0.0 is zero); the others every bit.
  EXPECT_EQ(cg::cudaNonzeroSuffix(ir::DType::BFloat16), "f16");
  EXPECT_EQ(cg::cudaNonzeroSuffix(ir::DType::Bool), "u8");
  EXPECT_EQ(cg::cudaTriangleSuffix(ir::DType::Float64), "u64");
  EXPECT_EQ(sizeof(cg::CudaStrided), (1 + 2 * cg::kCudaMaxDims) * sizeof(long long));  // KilnStrided's layout
  std::string why;
  cg::Nvrtc* n = cg::Nvrtc::instance(&why);
  if (!n) GTEST_SKIP() << "NVRTC is not available here (" << why << "): the unit is not compiled";
  const std::string ptx = n->compileToPtx(src, "kiln_tri_nonzero.cu", codegen::kDefaultCudaArch);
  for (const std::string& e : entries) EXPECT_NE(ptx.find(".entry " + e + "("), std::string::npos) << e;
}

TEST(CudaTriNonzeroScripts, RunWithTheCpuAsTheDevice) {
  test::ScriptOut o = test::runPy("cpu_tri_nonzero_checks", test::onDevice(test::kTriNonzeroChecks, "cpu"), false);
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, test::kTriNonzeroChecksExpected);
}

}  // namespace
}  // namespace kiln
