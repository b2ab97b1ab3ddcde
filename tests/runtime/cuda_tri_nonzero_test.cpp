// tril, triu and nonzero on the GPU (runtime/cuda_tri_nonzero_ops.cpp; ctest label `gpu`, each
// test skips, saying why, where there is no GPU): every case of kTriNonzeroChecks against Kiln's
// CPU kernels, exactly, eager and compiled; and the ops PyTorch's errors name.
#include "tests/runtime/cuda_training_scripts.h"
#include "tests/runtime/cuda_tri_nonzero_scripts.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

TEST(CudaTriNonzero, TrilTriuAndNonzeroMatchTheCpu) {
  REQUIRE_GPU();
  testing::internal::CaptureStderr();
  test::ScriptOut o = test::runPy("cuda_tri_nonzero_checks", test::onDevice(test::kTriNonzeroChecks), false);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed << "\nstderr:\n" << err;
  EXPECT_EQ(o.printed, test::kTriNonzeroChecksExpected) << err;
}

// With every tensor on the GPU (the corpus's causal masks): the mask is made on the device, and a
// tril of fewer than 2 dims is the CPU op's error.
TEST(CudaTriNonzero, DefaultDeviceCausalMaskAndErrors) {
  REQUIRE_GPU();
  test::ScriptOut o = test::runPy("cuda_tri_default_device", R"(import torch
torch.set_default_device('cuda')
m = torch.tril(torch.ones(4, 4))
print(m.device.type, m.sum().item(), torch.nonzero(m).shape)
try:
    torch.tril(torch.ones(4))
except RuntimeError as e:
    print('E', e)
)");
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "cuda 10.0 torch.Size([10, 2])\nE tril: input tensor must have at least 2 dimensions\n");
}

}  // namespace
}  // namespace kiln
