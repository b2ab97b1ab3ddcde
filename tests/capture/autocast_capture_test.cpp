// torch.autocast under torch.compile: a block inside the compiled function is captured as
// Dynamo's _enter_autocast / _exit_autocast nodes (a graph break inside it closes the block in
// the first graph and the resume function enters it again); an ambient autocast state and the
// default dtype are guarded (GLOBAL_STATE), so a change recompiles. Compiled output equals eager.
#include "engine/ir/text.h"
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

std::string capturedText(const driver::CompiledFrameLog& log) {
  std::string all;
  for (const auto& f : log.frames) all += ir::printGraph(f->captured) + "\n";
  return all;
}

TEST(AutocastCapture, BlockWithBreakInside) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/autocast_block.py";
  test::writeFile(path,
                  "import torch\n"
                  "import torch._dynamo\n"
                  "@torch.compile\n"
                  "def f(a, b):\n"
                  "    with torch.autocast(device_type='cpu', dtype=torch.bfloat16):\n"
                  "        c = torch.mm(a, b)\n"
                  "        torch._dynamo.graph_break()\n"
                  "        e = torch.mm(torch.relu(c) + 1, b)\n"
                  "    g = torch.mm(a, b)\n"
                  "    return e, g, c.dtype, e.dtype, g.dtype, torch.is_autocast_enabled('cpu')\n"
                  "a = torch.arange(16.0).reshape(4, 4) / 8\n"
                  "print(f(a, a.t()))\n"
                  "print(torch.is_autocast_enabled('cpu'))\n");
  const std::string eager = test::runPrinting(path, true);
  EXPECT_NE(eager.find("torch.bfloat16, torch.bfloat16, torch.float32, False)"), std::string::npos) << eager;
  driver::CompiledFrameLog log;
  EXPECT_EQ(test::runPrinting(path, false, &log), eager);
  ASSERT_EQ(log.frames.size(), 2u);
  const std::string graphs = capturedText(log);
  // Each graph opens and closes the block; the first ends it at the break.
  EXPECT_NE(graphs.find("torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)"), std::string::npos) << graphs;
  EXPECT_NE(graphs.find("torch.amp.autocast_mode._exit_autocast(_enter_autocast)"), std::string::npos) << graphs;
  EXPECT_NE(graphs.find("\"bf16[4, 4]\" = torch.mm("), std::string::npos) << graphs;
}

TEST(AutocastCapture, AmbientStateAndDefaultDtypeRecompile) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/autocast_ambient.py";
  test::writeFile(path,
                  "import torch\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    return torch.mm(x, x) + torch.ones(2) * 0.5\n"
                  "x = torch.ones(2, 2)\n"
                  "print(f(x).dtype)\n"
                  "with torch.autocast('cpu', dtype=torch.bfloat16):\n"
                  "    print(f(x).dtype)\n"
                  "torch.set_default_dtype(torch.float64)\n"
                  "print(f(x).dtype)\n"
                  "torch.set_default_dtype(torch.float32)\n"
                  "print(f(x).dtype)\n");
  const std::string eager = test::runPrinting(path, true);
  EXPECT_EQ(eager, "torch.float32\ntorch.float32\ntorch.float64\ntorch.float32\n");
  driver::CompiledFrameLog log;
  EXPECT_EQ(test::runPrinting(path, false, &log), eager);
  EXPECT_EQ(log.frames.size(), 3u);  // the last call reuses the first graph
}

}  // namespace
}  // namespace kiln
