// A compiled graph whose inputs require grad runs its generated code, and backward through its
// outputs (CompiledFunctionBackward, recomputing the graph eagerly) gives the eager gradients.
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>


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

}  // namespace
}  // namespace kiln
