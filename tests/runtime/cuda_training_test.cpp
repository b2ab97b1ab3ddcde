// Training on the GPU (ctest label `gpu`; each test skips, saying why, where there is none): the
// seed tutorial's MiniTransformer (token + position embeddings, attention, GELU feed-forward,
// LayerNorm, dropout, x[:, 0, :], cross_entropy, AdamW) trained for a few steps on cuda and on
// the CPU must give the same losses and parameters; each op of that step is checked on its own
// first (forward and gradients, device against CPU), so a failure names the op.
#include "engine/runtime/cuda_runtime.h"
#include "tests/runtime/cuda_training_scripts.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln {
namespace {

using test::dropoutTrainScript;
using test::kOpChecks;
using test::kOpChecksExpected;
using test::onDevice;
using test::runPy;
using test::trainScript;

TEST(CudaTraining, EachOpOfATransformerTrainingStepMatchesTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_training_ops", onDevice(kOpChecks));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, kOpChecksExpected);
}

TEST(CudaTraining, MiniTransformerTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_training_eager", trainScript(false));
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "devices True\nlosses True\nparams True\ntrained True\n");
}

// torch.compile'd: a graph with inputs that require grad runs op by op through the eager
// dispatcher on the device (runtime/README), so the values are the eager ones.
TEST(CudaTraining, CompiledMiniTransformerTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_training_compiled", trainScript(true), false);
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "devices True\nlosses True\nparams True\ntrained True\n");
}

// Seed 001_04 on the H100 stopped here: the compiled frame's BatchNorm buffer updates were
// written back through host memory.
TEST(CudaTraining, CompiledConvBatchNormTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_training_conv_bn", onDevice(test::kConvBnTrain), false);
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "losses True\nrunning stats True 3 True\n");
}

// Dropout 0.1 in training mode: the masks come from the CUDA generator, so only shapes and
// finiteness can be compared with the CPU run.
TEST(CudaTraining, MiniTransformerWithDropoutTrainsToFiniteValues) {
  REQUIRE_GPU();
  test::ScriptOut o = runPy("cuda_training_dropout", dropoutTrainScript());
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "devices True\nlosses True\nparams True\ntrained True\n");
}

}  // namespace
}  // namespace kiln
