// A torch.compile'd optimizer.step() (issue 18): SGD, Adam and AdamW capture into one graph per
// cache entry (no graph break; the first call, which makes the state, is a graph of its own and
// the second recompiles once the state exists), their fused kernels write the parameters and
// the state in place, and after several steps with new gradients (drawn, not computed from the
// parameters, so that a last-ulp difference is not amplified by training) the parameters and every
// state tensor equal eager's: bit for bit for SGD (the same ops in the same order) and for Adam's
// state; Adam's and AdamW's parameters within 1e-6 (the test says why), since their compiled step
// keeps `step` a float32 tensor as PyTorch does under torch.compile (bias corrections in float32)
// where eager computes them in double.
#include "engine/runtime/compiled_graph.h"
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace kiln {
namespace {

std::string script(const std::string& optimizer) {
  return "import torch\n"
         "torch.manual_seed(0)\n"
         "m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))\n"
         "opt = " +
         optimizer +
         "\n"
         "@torch.compile\n"
         "def step():\n"
         "    opt.step()\n"
         "(m(torch.randn(4, 16)) ** 2).sum().backward()\n"
         "for i in range(5):\n"
         "    step()\n"
         "    for p in m.parameters():\n"
         "        p.grad = torch.randn(p.shape)\n"
         "for p in m.parameters():\n"
         "    print('param', p.detach().flatten().tolist())\n"
         "    st = opt.state.get(p, {})\n"
         "    for k in sorted(st.keys()):\n"
         "        print(k, st[k].flatten().tolist())\n";
}

// The numbers a line prints (after its label), to compare within a tolerance.
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::string t = text;
  for (char& c : t)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream in(t);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    double v = std::strtod(word.c_str(), &end);
    if (end && *end == '\0') out.push_back(v);
  }
  return out;
}

struct Case {
  const char* name;
  const char* optimizer;
  bool bitwise;       // parameters and state
  bool stateBitwise;  // the state alone
  int stateTensorsPerParam;
};

class CompiledOptimizer : public ::testing::TestWithParam<Case> {};

TEST_P(CompiledOptimizer, OneGraphInPlaceKernelsAndEagerResults) {
  const Case& k = GetParam();
  test::Counted c;
  const std::string path = std::string(KILN_BINARY_DIR) + "/tests/capture/optim_" + k.name + ".py";
  test::writeFile(path, script(k.optimizer));
  driver::CompiledFrameLog log;
  {
    std::ostringstream out;
    driver::RunOptions ro;
    ro.scriptPath = path;
    ro.frameLog = &log;
    driver::RunResult r = driver::runScript(ro, c.rep, out);
    ASSERT_EQ(r.exitCode, 0) << r.error;
    c.printed = out.str();
  }
  const std::string eager = test::runPrinting(path, true);
  ASSERT_FALSE(eager.empty());

  // No graph break; the state-making first call and then one entry that serves every step.
  EXPECT_TRUE(c.rep.breaks().empty()) << c.rep.text();
  EXPECT_LE(c.rep.graphs().size(), 2u) << c.rep.text();
  EXPECT_LE(c.rep.recompiles().size(), 1u) << c.rep.text();

  if (k.bitwise) {
    EXPECT_EQ(c.printed, eager);
  } else {
    std::istringstream a(c.printed), b(eager);
    std::string la, lb;
    size_t lines = 0;
    while (std::getline(b, lb)) {
      ASSERT_TRUE(static_cast<bool>(std::getline(a, la))) << "compiled printed fewer lines";
      ++lines;
      EXPECT_EQ(la.substr(0, la.find(' ')), lb.substr(0, lb.find(' ')));
      const bool param = lb.rfind("param", 0) == 0;
      if (!param && k.stateBitwise) {  // the state (step, moments, max_exp_avg_sq): the same ops, bit for bit
        EXPECT_EQ(la, lb);
        continue;
      }
      const std::vector<double> x = numbers(la.substr(la.find(' ') + 1)), y = numbers(lb.substr(lb.find(' ') + 1));
      ASSERT_EQ(x.size(), y.size()) << lb.substr(0, lb.find(' '));
      for (size_t i = 0; i < x.size(); ++i) {
        // The parameters: float32 `0.999 ** step` carries 0.999's float32 rounding (1.3e-8),
        // which `1 - beta2 ** step` turns into 1.3e-5 relative at step 1 (PyTorch's compiled
        // Adam has the same), so each update (lr = 0.01) may be off by 1e-5 of itself: 5 steps
        // allow 1e-6, plus a few ulps of the value.
        // The state, with Adam's coupled weight decay (grad + wd * param), inherits those
        // parameters' differences scaled by wd = 0.1 (1e-7), and 1e-5 of itself.
        const double tol = param ? 8 * 1.2e-7 * std::fabs(y[i]) + 1e-6 : 1e-5 * std::fabs(y[i]) + 1e-7;
        EXPECT_NEAR(x[i], y[i], tol) << lb.substr(0, lb.find(' ')) << "[" << i << "]";
      }
    }
    EXPECT_EQ(lines, 4u * (1 + static_cast<size_t>(k.stateTensorsPerParam)));
    EXPECT_FALSE(std::getline(a, la)) << "compiled printed more lines";
  }

  // The steady-state entry's kernels write every parameter and state tensor (Adam's step
  // included) in place: no mutated input is copied back from a buffer of its own.
  ASSERT_FALSE(log.frames.empty());
  const std::string wrapper = log.frames.back()->compiled->wrapperText();
  size_t inPlace = 0;
  for (size_t at = wrapper.find("# written in place"); at != std::string::npos; at = wrapper.find("# written in place", at + 1)) ++inPlace;
  EXPECT_EQ(inPlace, 4u * (1 + static_cast<size_t>(k.stateTensorsPerParam))) << wrapper;
  EXPECT_EQ(wrapper.find("empty_strided_cpu(f32[32, 16])"), std::string::npos) << wrapper;
  // One kernel per parameter over its shape (Adam: and one point for its step and bias
  // corrections), the whole chain fused.
  size_t launches = 0;
  for (size_t at = wrapper.find(" points"); at != std::string::npos; at = wrapper.find(" points", at + 1)) ++launches;
  EXPECT_EQ(launches, 4u * (k.stateTensorsPerParam >= 3 ? 2 : 1)) << wrapper;
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, CompiledOptimizer,
    ::testing::Values(
        Case{"sgd", "torch.optim.SGD(m.parameters(), lr=0.05)", true, true, 0},
        Case{"sgd_momentum", "torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)", true, true, 1},
        Case{"sgd_nesterov_wd", "torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)", true, true, 1},
        Case{"sgd_dampening_maximize", "torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.5, dampening=0.1, maximize=True)", true, true,
             1},
        Case{"adam", "torch.optim.Adam(m.parameters(), lr=0.01)", false, true, 3},
        Case{"adam_amsgrad_wd", "torch.optim.Adam(m.parameters(), lr=0.01, amsgrad=True, weight_decay=0.1)", false, false, 4},
        Case{"adamw", "torch.optim.AdamW(m.parameters(), lr=0.01)", false, true, 3},
        Case{"adamw_amsgrad_maximize", "torch.optim.AdamW(m.parameters(), lr=0.01, amsgrad=True, maximize=True)", false, true, 4}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A break inside a prelude module is reported at that module's file and line, as Dynamo names
// the innermost frame (it named the user's script with the prelude's line number).
TEST(CompiledOptimizer, BreakInsideThePreludeNamesThePreludeFile) {
  test::Counted c;
  test::run("break_in_prelude",
            "import torch\n"
            "m = torch.nn.Linear(3, 2)\n"
            "m(torch.ones(1, 3)).sum().backward()\n"
            "@torch.compile\n"
            "def f():\n"
            "    return torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)\n"
            "print(f())\n",
            c);
  ASSERT_FALSE(c.rep.breaks().empty());
  const auto& b = c.rep.breaks().front();
  ASSERT_FALSE(b.userStack.empty());
  EXPECT_EQ(b.file, "torch.nn.utils.py");
  EXPECT_EQ(b.file, b.userStack.back().file);
  EXPECT_EQ(b.line, b.userStack.back().line);
}

}  // namespace
}  // namespace kiln
