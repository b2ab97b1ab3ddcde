// Memory planning: intermediate buffers with disjoint lifetimes share a slot; graph outputs and
// the buffers they view are never reused (results survive the next run of the graph).
#include "engine/runtime/memory_plan.h"
#include "engine/codegen/kernel_compiler.h"
#include "engine/driver/script_runner.h"
#include "engine/ir/text.h"
#include "engine/runtime/compiled_graph.h"
#include "engine/schedule/kernel_builder.h"
#include "tests/support/profile_sink.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace kiln {
namespace {

// A chain of kernels separated by extern reductions: each kernel's output dies at the next step.
const char* kChain = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[64]"):
        sin: "f32[64]" = torch.ops.aten.sin.default(arg0_1)  # k0
        var: "f32[]" = torch.ops.aten.var.correction(sin)
        cos: "f32[64]" = torch.ops.aten.cos.default(arg0_1)  # k1
        var_1: "f32[]" = torch.ops.aten.var.correction(cos)
        exp: "f32[64]" = torch.ops.aten.exp.default(arg0_1)  # k2
        var_2: "f32[]" = torch.ops.aten.var.correction(exp)
        return (var, var_1, var_2)
)";

TEST(MemoryPlan, ReusesDeadBuffers) {
  ir::Graph g = ir::parseGraph(kChain);
  schedule::ScheduledGraph s = schedule::scheduleGraph(g);
  runtime::MemoryPlan plan = runtime::planMemory(g, s);
  EXPECT_EQ(plan.planned, 3);
  EXPECT_EQ(plan.slotElements.size(), 1u) << plan.summary();
  EXPECT_EQ(plan.peakBytes, 64 * 4);
  EXPECT_EQ(plan.unplannedBytes, 3 * 64 * 4);
}

TEST(MemoryPlan, OutputsAndWhatTheyViewAreNotReused) {
  std::string path = std::string(KILN_BINARY_DIR) + "/tests/runtime/escape.py";
  std::ofstream(path) << "import torch\n@torch.compile\ndef f(x):\n    y = (x * 2).sin()\n    return y.view(-1)\n"
                         "a = f(torch.ones(4, 4))\nb = f(torch.zeros(4, 4))\nout = a\nout_1 = b\n";
  session::NullSink sink;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult r = driver::runScript(ro, sink, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  // sin(2) ~ 0.909 must survive the second call, which computes zeros.
  EXPECT_NE(r.outputsJson.find("0.909"), std::string::npos) << r.outputsJson;
}

// A big out* tensor is recorded by its dtype and shape only: seed 004_02's `out` of 2^30 floats
// was written as ~20 GB of JSON (past SQLite's 1 GB value limit, and slower than the script).
TEST(SessionOutputs, BigTensorsAreRecordedWithoutTheirElements) {
  std::string path = std::string(KILN_BINARY_DIR) + "/tests/runtime/big_out.py";
  std::ofstream(path) << "import torch\nout = torch.ones(1024, 1025)\nout_1 = torch.ones(1024, 1024)\n";
  session::NullSink sink;
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult r = driver::runScript(ro, sink, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  const nlohmann::json j = nlohmann::json::parse(r.outputsJson);
  EXPECT_EQ(j["out"]["shape"], nlohmann::json::array({1024, 1025}));
  EXPECT_FALSE(j["out"].contains("data"));
  EXPECT_NE(j["out"].value("elided", "").find("1049600 elements are not recorded"), std::string::npos) << j["out"].dump();
  EXPECT_EQ(j["out_1"]["data"].size(), 1048576u);  // 2^20: still recorded
  EXPECT_FALSE(j["out_1"].contains("elided"));
}

// kiln run --profile N: every compiled graph the script called is timed afterwards, eager
// against compiled, with its kernels, and reported to the session.
TEST(RunProfile, EveryCalledGraphIsTimedWithItsKernels) {
  test::ProfileSink sink;
  std::string path = std::string(KILN_BINARY_DIR) + "/tests/runtime/profiled.py";
  std::ofstream(path) << "import torch\n@torch.compile\ndef f(x):\n    return (x * 2).sin().sum(dim=1)\n"
                         "out = f(torch.ones(64, 64))\n";
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  ro.profileRepeat = 3;
  std::vector<std::pair<int, std::string>> progress;
  ro.progress = [&](int pct, const std::string& what) { progress.emplace_back(pct, what); };
  driver::RunResult r = driver::runScript(ro, sink, out);
  ASSERT_EQ(r.exitCode, 0) << r.error;
  ASSERT_EQ(sink.profiles.size(), 1u);
  const auto& p = sink.profiles[0];
  EXPECT_EQ(p.compileId, "0/0");
  EXPECT_EQ(p.repeat, 3);
  EXPECT_GT(p.eagerMs, 0.0);
  EXPECT_GT(p.compiledMs, 0.0);
  ASSERT_EQ(p.kernels.size(), sink.kernels.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    EXPECT_EQ(p.kernels[i].name, sink.kernels[i]);
    EXPECT_GT(p.kernels[i].bytes, 64 * 64 * 4 - 1);
  }
  // --progress: statements in order (line 1 first), the compile in the third of three, then the
  // timing.
  ASSERT_GE(progress.size(), 4u);
  EXPECT_EQ(progress.front(), (std::pair<int, std::string>{0, "line 1"}));
  EXPECT_NE(std::find(progress.begin(), progress.end(), std::pair<int, std::string>{66, "compiling [0/0]"}), progress.end());
  EXPECT_EQ(progress.back(), (std::pair<int, std::string>{100, "timing the compiled graphs"}));
  for (size_t i = 1; i < progress.size(); ++i) EXPECT_GE(progress[i].first, progress[i - 1].first);
}

// exp feeds an extern mm and then a pointwise kernel that is its last reader: that kernel writes
// its result over exp's buffer (an inout buffer, no new allocation), and computes the same.
const char* kInPlace = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 4]", arg1_1: "f32[4, 4]"):
        exp: "f32[4, 4]" = torch.ops.aten.exp.default(arg0_1)  # k0
        mm: "f32[4, 4]" = torch.ops.aten.mm.default(exp, arg1_1)
        mul: "f32[4, 4]" = torch.ops.aten.mul.Tensor(exp, mm)  # k1
        relu: "f32[4, 4]" = torch.ops.aten.relu.default(mul)  # k1
        sum_1: "f32[]" = torch.ops.aten.sum.default(relu)
        return (sum_1, mm)
)";

std::vector<tensor::Tensor> inPlaceInputs() {
  tensor::Tensor a = tensor::Tensor::empty({4, 4}, ir::DType::Float32), b = a.clone();
  for (int64_t i = 0; i < 16; ++i) a.storeAt(i, std::sin(0.7 * double(i))), b.storeAt(i, std::cos(0.3 * double(i)));
  return {a, b};
}

TEST(InPlace, PointwiseKernelOverwritesTheBufferThatDiesWithIt) {
  ir::Graph g = ir::parseGraph(kInPlace);
  schedule::ScheduledGraph s = schedule::scheduleGraph(g);
  int inPlace = 0;
  for (const auto& st : s.steps) inPlace += static_cast<int>(st.inPlace.size());
  ASSERT_EQ(inPlace, 1);
  std::string text = kir::print(s.kernels.at(1));
  EXPECT_NE(text.find("inout in_out_exp: f32[4, 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("store in_out_exp["), std::string::npos) << text;
  EXPECT_EQ(kir::parseKernel(text), s.kernels.at(1));  // the text form round-trips
  auto module = codegen::makeLlvmCpuCompiler()->compile(s.kernels, "in_place");
  runtime::CompiledGraph cg(g, std::move(s), module);
  EXPECT_NE(cg.wrapperText().find("relu = exp; del exp  # reuse, written in place"), std::string::npos) << cg.wrapperText();
  auto in = inPlaceInputs();
  auto want = runtime::runAtenGraph(g, in);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the planned slots
    auto got = cg.run(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      auto x = want[i].toDoubles(), y = got[i].toDoubles();
      for (size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(x[k], y[k], 1e-4 * std::max(1.0, std::fabs(x[k]))) << i << "[" << k << "]";
    }
  }
}

// The same graph returning exp: the buffer escapes to the caller, so nothing is overwritten.
TEST(InPlace, NeverOverwritesAGraphOutput) {
  std::string text = kInPlace;
  text.replace(text.find("return (sum_1, mm)"), 18, "return (sum_1, exp)");
  ir::Graph g = ir::parseGraph(text);
  schedule::ScheduledGraph s = schedule::scheduleGraph(g);
  for (const auto& st : s.steps) EXPECT_TRUE(st.inPlace.empty());
}

}  // namespace
}  // namespace kiln
