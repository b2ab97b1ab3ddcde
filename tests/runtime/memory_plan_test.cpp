// Memory planning: intermediate buffers with disjoint lifetimes share a slot; graph outputs and
// the buffers they view are never reused (results survive the next run of the graph).
#include "engine/driver/script_runner.h"
#include "engine/ir/text.h"
#include "engine/runtime/memory_plan.h"
#include "engine/schedule/kernel_builder.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kiln
