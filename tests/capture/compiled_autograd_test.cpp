// A compiled graph whose inputs require grad runs its generated code, and backward through its
// outputs (CompiledFunctionBackward, recomputing the graph eagerly) gives the eager gradients.
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace kiln {
namespace {

constexpr const char* kScript =
    "import torch\n"
    "import torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 4), nn.Softmax(dim=-1))\n"
    "step = torch.compile(model)\n"
    "x = torch.randn(5, 8)\n"
    "y = step(x)\n"
    "print(y.requires_grad)\n"
    "loss = (y * torch.arange(4.0)).sum()\n"
    "loss.backward()\n"
    "for p in model.parameters():\n"
    "    print([round(v, 5) for v in p.grad.flatten().tolist()[:6]])\n"
    "with torch.no_grad():\n"
    "    print(step(x).requires_grad)\n";

TEST(CompiledAutograd, ForwardRunsCompiledAndGradientsMatchEager) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/compiled_autograd.py";
  test::writeFile(path, kScript);
  const std::string eager = test::runPrinting(path, true);
  EXPECT_EQ(eager.substr(0, 5), "True\n") << eager;
  driver::CompiledFrameLog log;
  EXPECT_EQ(test::runPrinting(path, false, &log), eager);
  // The first call (grad mode on, parameters requiring grad) ran the compiled graph.
  ASSERT_FALSE(log.frames.empty());
  EXPECT_TRUE(log.frames.front()->called);
}

TEST(CompiledAutograd, GradFnIsCompiledFunctionBackward) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/compiled_grad_fn.py";
  test::writeFile(path,
                  "import torch\n"
                  "w = torch.ones(3, requires_grad=True)\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    return (x * w).sin()\n"
                  "y = f(torch.arange(3.0))\n"
                  "print(y.grad_fn.name())\n"
                  "y.sum().backward()\n"
                  "print(w.grad)\n");
  std::string out = test::runPrinting(path, false);
  EXPECT_EQ(out, "CompiledFunctionBackward\ntensor([ 0.0000,  0.5403, -0.8323])\n");
}

// Counts what capture reports: graph breaks (with their explanations) and captured graphs.
class CaptureCounts : public session::SessionSink {
 public:
  void graphBreak(const session::GraphBreakEvent& e) override { breaks.push_back(e.explanation); }
  void stage(const session::StageEvent& e) override {
    if (e.stage == "captured") captured.push_back(e.text);
  }
  std::vector<std::string> breaks, captured;
};

std::string runCounting(const std::string& path, CaptureCounts& counts) {
  std::ostringstream out;
  driver::RunOptions ro;
  ro.scriptPath = path;
  driver::RunResult r = driver::runScript(ro, counts, out);
  EXPECT_EQ(r.exitCode, 0) << r.error;
  return out.str();
}

// A torch.autograd.Function is captured as Dynamo 2.11 captures it: no graph break, one
// autograd_function_apply node after its forward's ops, and backward runs the user's backward
// (here deliberately not the derivative of forward) with what forward saved on ctx.
TEST(CompiledAutograd, AutogradFunctionIsCapturedWithItsOwnBackward) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/autograd_function_captured.py";
  test::writeFile(path,
                  "import torch\n"
                  "class Odd(torch.autograd.Function):\n"
                  "    @staticmethod\n"
                  "    def forward(ctx, x, k):\n"
                  "        ctx.save_for_backward(x)\n"
                  "        ctx.k = k\n"
                  "        return x * x\n"
                  "    @staticmethod\n"
                  "    def backward(ctx, g):\n"
                  "        (x,) = ctx.saved_tensors\n"
                  "        return g * x * ctx.k, None\n"
                  "@torch.compile(fullgraph=True)\n"
                  "def f(x):\n"
                  "    return Odd.apply(x, 10.0).sin()\n"
                  "x = torch.arange(3.0, requires_grad=True)\n"
                  "y = f(x)\n"
                  "y.sum().backward()\n"
                  "print(x.grad)\n");
  const std::string eager = test::runPrinting(path, true);
  CaptureCounts counts;
  EXPECT_EQ(runCounting(path, counts), eager);
  EXPECT_EQ(eager, "tensor([  0.0000,   5.4030, -13.0729])\n");
  EXPECT_TRUE(counts.breaks.empty()) << counts.breaks.front();
  ASSERT_EQ(counts.captured.size(), 1u);
  EXPECT_NE(counts.captured[0].find("torch.ops.higher_order.autograd_function_apply([l_x_, None], [output], [l_x_]"), std::string::npos)
      << counts.captured[0];
}

// A backward that cannot be traced breaks the graph at the call (Dynamo does too), with the
// reason; the call then runs eagerly and its gradients are still the user's.
TEST(CompiledAutograd, AutogradFunctionWithUntraceableBackwardBreaks) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/autograd_function_breaks.py";
  test::writeFile(path,
                  "import torch\n"
                  "import torch._dynamo\n"
                  "class Breaky(torch.autograd.Function):\n"
                  "    @staticmethod\n"
                  "    def forward(ctx, x):\n"
                  "        return x * 2\n"
                  "    @staticmethod\n"
                  "    def backward(ctx, g):\n"
                  "        torch._dynamo.graph_break()\n"
                  "        return g * 3\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    return Breaky.apply(x).cos()\n"
                  "x = torch.arange(3.0, requires_grad=True)\n"
                  "f(x).sum().backward()\n"
                  "print(x.grad)\n");
  const std::string eager = test::runPrinting(path, true);
  CaptureCounts counts;
  EXPECT_EQ(runCounting(path, counts), eager);
  ASSERT_EQ(counts.breaks.size(), 1u);
  EXPECT_NE(counts.breaks[0].find("its backward cannot be traced"), std::string::npos) << counts.breaks[0];
}

// A backward that changes state outside itself (a global list) breaks too: tracing it must not
// turn its side effect into one every forward call replays.
TEST(CompiledAutograd, AutogradFunctionWithSideEffectInBackwardBreaks) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/autograd_function_side_effect.py";
  test::writeFile(path,
                  "import torch\n"
                  "LOG = []\n"
                  "class Logged(torch.autograd.Function):\n"
                  "    @staticmethod\n"
                  "    def forward(ctx, x):\n"
                  "        return x * 2\n"
                  "    @staticmethod\n"
                  "    def backward(ctx, g):\n"
                  "        LOG.append(1)\n"
                  "        return g * 3\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    return Logged.apply(x).cos()\n"
                  "x = torch.arange(3.0, requires_grad=True)\n"
                  "for _ in range(2):\n"
                  "    f(x).sum().backward()\n"
                  "print(x.grad, LOG)\n");
  const std::string eager = test::runPrinting(path, true);
  CaptureCounts counts;
  EXPECT_EQ(runCounting(path, counts), eager);
  EXPECT_NE(eager.find("[1, 1]"), std::string::npos) << eager;
  ASSERT_FALSE(counts.breaks.empty());
  EXPECT_NE(counts.breaks[0].find("its backward changes state outside itself"), std::string::npos) << counts.breaks[0];
}

}  // namespace
}  // namespace kiln
