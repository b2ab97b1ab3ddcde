// torch.compile(mode="max-autotune") on the CPU (engine/driver/autotune.h): every matrix product
// of the forward and of the compiled backward is timed with each GEMM implementation, the
// fastest is the one the graph runs (the wrapper says so), `kiln show` lists the candidates, and
// a second run reads the timings from the cache instead of measuring again. The numbers printed
// are eager's; mode="default" tunes nothing.
#include "tests/cli/run_kiln.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace kiln {
namespace {

namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const char* kProgram =
    "import torch\n"
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "torch.manual_seed(0)\n"
    "model = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))\n"
    "x = torch.randn(8, 256)\n"
    "y = torch.randint(0, 10, (8,))\n"
    "eager = model(x)\n"
    "F.cross_entropy(eager, y).backward()\n"
    "want = [p.grad.clone() for p in model.parameters()]\n"
    "model.zero_grad()\n"
    "compiled = torch.compile(model, mode=MODE)\n"
    "out = compiled(x)\n"
    "F.cross_entropy(out, y).backward()\n"
    "print(torch.allclose(out, eager, atol=1e-5), tuple(out.shape))\n"
    "print(all(torch.allclose(p.grad, w, atol=1e-5) for p, w in zip(model.parameters(), want)))\n";

std::string program(const std::string& mode) {
  std::string p = kProgram;
  p.replace(p.find("MODE"), 4, "'" + mode + "'");
  return p;
}

TEST(CliAutotune, ProductsAreTimedThePickedOneRunsAndASecondRunReadsTheCache) {
  test::TempDir dir("/tmp/kiln-autotune");
  const std::string prog = (dir.path / "prog.py").string(), db = (dir.path / "s.db").string();
  const std::map<std::string, std::string> env = {{"KILN_CACHE_DIR", (dir.path / "cache").string()}};
  test::writeFile(prog, program("max-autotune"));
  test::KilnRun first = test::runKiln({"run", prog, "--db", db}, dir.path, env);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_EQ(first.out.substr(0, first.out.find("session ")), "True (8, 10)\nTrue\n");

  test::KilnRun show = test::runKiln({"show", "1", "--db", db}, dir.path);
  ASSERT_EQ(show.exitCode, 0) << show.err;
  // The forward's two addmm and the backward's products (the first layer's weight gradient, the
  // second's weight and input gradients), each with the three implementations and one chosen.
  const size_t products = count(show.out, "    autotune ");
  EXPECT_GE(products, 5u) << show.out;
  EXPECT_EQ(count(show.out, "      * "), products) << show.out;
  EXPECT_EQ(count(show.out, " openblas "), products) << show.out;
  EXPECT_EQ(count(show.out, " onednn "), products) << show.out;
  EXPECT_NE(show.out.find("autotune addmm: [8, 256] @ [256, 128] (column-major) + bias, float32\n"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("(cached)"), std::string::npos) << show.out;

  // The wrapper runs the chosen implementation and says what was measured.
  test::KilnRun wrapper = test::runKiln({"show", "1", "--stage", "wrapper", "--db", db}, dir.path);
  ASSERT_EQ(wrapper.exitCode, 0) << wrapper.err;
  EXPECT_GE(count(wrapper.out, "extern_kernels.aten.addmm.default("), 2u) << wrapper.out;
  EXPECT_EQ(count(wrapper.out, "# max-autotune: "), 0u);
  EXPECT_GE(count(wrapper.out, ", max-autotune: "), products) << wrapper.out;

  // Again: the same products, read from the cache.
  test::KilnRun second = test::runKiln({"run", prog, "--db", db}, dir.path, env);
  ASSERT_EQ(second.exitCode, 0) << second.err;
  EXPECT_EQ(second.out.substr(0, second.out.find("session ")), "True (8, 10)\nTrue\n");
  test::KilnRun show2 = test::runKiln({"show", "2", "--db", db}, dir.path);
  EXPECT_EQ(count(show2.out, "    autotune "), products) << show2.out;
  EXPECT_EQ(count(show2.out, "(cached)"), products) << show2.out;
}

TEST(CliAutotune, TheDefaultModeTunesNothing) {
  test::TempDir dir("/tmp/kiln-autotune");
  const std::string prog = (dir.path / "prog.py").string(), db = (dir.path / "s.db").string();
  test::writeFile(prog, program("default"));
  test::KilnRun run = test::runKiln({"run", prog, "--db", db}, dir.path, {{"KILN_CACHE_DIR", (dir.path / "cache").string()}});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(run.out.substr(0, run.out.find("session ")), "True (8, 10)\nTrue\n");
  test::KilnRun show = test::runKiln({"show", "1", "--db", db}, dir.path);
  EXPECT_EQ(show.out.find("    autotune "), std::string::npos) << show.out;
  // The compiled frame is nn.Sequential.forward: named by the library file it is defined in,
  // not by the script's name with the library's line number.
  EXPECT_NE(show.out.find("frame 0: forward (torch.nn.py:"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("forward (prog.py:"), std::string::npos) << show.out;
}

}  // namespace
}  // namespace kiln
