// Creation functions inside a compiled function give what they give eagerly: the captured call
// keeps its keyword arguments (torch.arange(0, 10, step=2) once lowered with step 1).
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(CreationCapture, CompiledMatchesEager) {
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/creation.py";
  test::writeFile(path,
                  "import torch\n"
                  "@torch.compile\n"
                  "def f(x):\n"
                  "    a = torch.arange(0, 10, step=2)\n"
                  "    b = torch.arange(1.0, 2.0, 0.25)\n"
                  "    c = torch.full((5,), 3, dtype=torch.float32)\n"
                  "    d = torch.zeros(5, dtype=torch.int64) + torch.ones_like(x, dtype=torch.int64)\n"
                  "    return x + a, b * 2, x * c, d\n"
                  "for t in f(torch.ones(5)):\n"
                  "    print(t)\n");
  const std::string eager = test::runPrinting(path, true);
  EXPECT_NE(eager.find("tensor([1., 3., 5., 7., 9.])"), std::string::npos) << eager;
  EXPECT_EQ(test::runPrinting(path, false), eager);
}

}  // namespace
}  // namespace kiln
