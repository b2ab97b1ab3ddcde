// Training on the GPU (ctest label `gpu`; each test skips, saying why, where there is none): the
// seed tutorial's MiniTransformer (token + position embeddings, attention, GELU feed-forward,
// LayerNorm, dropout, x[:, 0, :], cross_entropy, AdamW) trained for a few steps on cuda and on
// the CPU must give the same losses and parameters; each op of that step is checked on its own
// first (forward and gradients, device against CPU), so a failure names the op.
#include "engine/runtime/cuda_runtime.h"
#include "engine/session/sink.h"
#include "tests/runtime/cuda_training_scripts.h"
#include "tests/runtime/require_gpu.h"
#include "tests/runtime/run_py.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

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

// What a run reports about its compiled graphs: stage names, wrappers, kernel names.
struct Reported : session::SessionSink {
  std::set<std::string> stages;
  std::vector<std::string> wrappers, kernels;
  void stage(const session::StageEvent& e) override { stages.insert(e.stage); }
  void wrapper(const session::WrapperEvent& e) override { wrappers.push_back(e.text); }
  void kernel(const session::KernelEvent& e) override { kernels.push_back(e.name); }
};

// torch.compile'd: the forward's kernels and the partitioned backward's run on the GPU, the
// backward from the activations the forward saved there (AOTAutograd's split), with the values
// the CPU gets.
TEST(CudaTraining, CompiledMiniTransformerTrainsOnTheGpuAsOnTheCpu) {
  REQUIRE_GPU();
  Reported rep;
  test::ScriptOut o = runPy("cuda_training_compiled", trainScript(true), false, rep);
  ASSERT_EQ(o.exitCode, 0) << o.error << "\nprinted so far:\n" << o.printed;
  EXPECT_EQ(o.printed, "devices True\nlosses True\nparams True\ntrained True\n");
  EXPECT_TRUE(rep.stages.count("backward:partition")) << "no partitioned forward";
  EXPECT_TRUE(rep.stages.count("backward:fused")) << "no compiled backward";
  bool gpuBackward = false;
  for (const auto& w : rep.wrappers) {
    EXPECT_EQ(w.find("differentiated eagerly"), std::string::npos) << w;
    const size_t bw = w.find("# backward (");
    gpuBackward = gpuBackward || (bw != std::string::npos && w.find("CUDA kernels", bw) != std::string::npos);
  }
  EXPECT_TRUE(gpuBackward) << "no wrapper shows a backward of CUDA kernels";
  EXPECT_TRUE(std::any_of(rep.kernels.begin(), rep.kernels.end(), [](const std::string& k) { return k.rfind("bw_", 0) == 0; }));
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
