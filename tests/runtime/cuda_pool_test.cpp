// Pooling on the GPU (runtime/cuda_pool_ops.cpp; ctest label `gpu`, each test skips, saying why,
// where there is no GPU): max_pool2d with its indices and gradient (ties, NaN, padding,
// dilation, ceil_mode, strided and channels-last inputs, float64, int64), avg_pool2d
// (count_include_pad, ceil_mode, divisor_override) and adaptive_avg_pool2d, forward and backward,
// against Kiln's CPU kernels; a CNN with pooling trained one step eager and compiled on cuda as on
// the CPU, and compiled for inference as one GPU graph whose pooling ops are extern calls. The
// scripts run without a GPU too, with the CPU as the device (cuda_eager_ops_test.cpp).
#include "tests/runtime/cuda_pool_scripts.h"
#include "tests/runtime/cuda_training_scripts.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

TEST(CudaPool, ForwardAndBackwardMatchTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = test::runPy("cuda_pool_checks", test::onDevice(test::kPoolChecks));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, test::kPoolChecksExpected);
}

TEST(CudaPool, CnnWithPoolingTrainsEagerAndCompiledAsOnTheCpu) {
  REQUIRE_GPU();
  testing::internal::CaptureStderr();
  test::ScriptOut o = test::runPy("cuda_pool_cnn", test::onDevice(test::kPoolCnn), false);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed << "\nstderr:\n" << err;
  EXPECT_EQ(o.printed, test::kPoolCnnExpected) << err;
}

// PyTorch's CUDA average pooling takes floating types only (its CPU kernel, and Kiln's, also
// take int64); max pooling takes integers on both.
TEST(CudaPool, IntegerAveragePoolingIsPyTorchsCudaError) {
  REQUIRE_GPU();
  test::ScriptOut o = test::runPy("cuda_pool_int_avg", R"(import torch
import torch.nn.functional as F
x = torch.randint(0, 9, (1, 2, 4, 4))
print(F.avg_pool2d(x, 2).dtype)
try:
    F.avg_pool2d(x.cuda(), 2)
except RuntimeError as e:
    print('E', e)
print(torch.equal(F.max_pool2d(x.cuda(), 2).cpu(), F.max_pool2d(x, 2)))
)");
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "torch.int64\nE \"avg_pool2d_out_cuda_frame\" not implemented for 'Long'\nTrue\n");
}

}  // namespace
}  // namespace kiln
