// Values that depend on tensor data while capturing, as Dynamo 2.11 treats them: `assert` on a
// tensor becomes a torch._assert_async node, `if not t:` branches on t, a break in a `while`
// test's first evaluation resumes before the loop, a resume function with no
// tensor to trace is not compiled (has_tensor_in_frame) while a function given to torch.compile
// always is, and Tensor.item() under fullgraph=True is an unbacked scalar whose branch is a
// UserError (a multi-element item a TorchRuntimeError).
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace kiln {
namespace {

using test::Counted;
using test::run;

bool hasOp(const driver::ExplainReport& rep, const std::string& op) {
  for (const auto& g : rep.graphs())
    if (std::count(g.ops.begin(), g.ops.end(), op)) return true;
  return false;
}

TEST(DataDependent, AssertOnTensorIsAnAssertAsyncNode) {
  Counted c;
  run("dd_assert_async",
      "import torch\n"
      "def f(x):\n"
      "    b = x.sin()\n"
      "    assert x[0] == 3, 'first element must be 3'\n"
      "    return x.cos() + b\n"
      "cf = torch.compile(f, fullgraph=True)\n"
      "print(cf(torch.tensor([3.0, 4.0])))\n"
      "try:\n"
      "    cf(torch.tensor([5.0, 4.0]))\n"
      "except Exception as e:\n"
      "    print(type(e).__name__, e)\n",
      c, false);
  // One graph, no break: the check runs with the graph, and fails as a RuntimeError there
  // (eager Python raises AssertionError).
  EXPECT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_TRUE(c.rep.breaks().empty());
  EXPECT_TRUE(hasOp(c.rep, "torch._assert_async"));
  EXPECT_NE(c.printed.find("RuntimeError first element must be 3"), std::string::npos) << c.printed;
}

TEST(DataDependent, AssertWithComputedMessageStillBreaks) {
  Counted c;
  run("dd_assert_fstring",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    assert x.sum() > 0, f'sum {x.shape}'\n"
      "    return x + 1\n"
      "print(f(torch.ones(2)))\n",
      c);
  // Dynamo rewrites only asserts whose message is a constant: this one is a data-dependent jump.
  EXPECT_FALSE(hasOp(c.rep, "torch._assert_async"));
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_EQ(c.rep.breaks()[0].title, "Data-dependent branching");
}

TEST(DataDependent, IfNotBranchesOnTheTensorAndARaisingBranchIsNotCompiled) {
  Counted c;
  run("dd_if_not_raise",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    b = x.sin()\n"
      "    if not x.sum() <= 3:\n"
      "        raise ValueError('too big')\n"
      "    return x.cos() + b\n"
      "print(f(torch.zeros(3)))\n"
      "try:\n"
      "    f(torch.ones(3) * 4)\n"
      "except ValueError as e:\n"
      "    print('ValueError', e)\n",
      c);
  // The prefix graph (sin, sum, le) and the resume function of the `return` way; the raising
  // way's resume function takes no local (nothing after the raise runs) and reads no torch
  // global, so it is not compiled: no second break, no third graph.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_NE(c.printed.find("ValueError too big"), std::string::npos);
}

TEST(DataDependent, BreakInTheFirstWhileTestResumesBeforeTheLoop) {
  Counted c;
  run("dd_while_item_test",
      "import torch\n"
      "@torch.compile\n"
      "def shrink(x):\n"
      "    steps = 0\n"
      "    while x.abs().max().item() > 0.1:\n"
      "        x = x * 0.5 + 0.01\n"
      "        steps += 1\n"
      "    return x, steps\n"
      "print(shrink(torch.ones(3) * 4))\n"
      "print(shrink(torch.ones(3) * -8))\n",
      c);
  // The test's first evaluation comes before the loop's back edge: the frame's graph (abs, max)
  // runs, item() eagerly, then the resume function, which holds the loop: its own break at
  // item() is in the loop, so that frame runs eagerly (a second break). Both calls use them.
  ASSERT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_EQ(c.rep.graphs()[0].ops, (std::vector<std::string>{"abs", "max"}));
  ASSERT_EQ(c.rep.breaks().size(), 2u);
  EXPECT_EQ(c.rep.breaks()[0].compileId, "0/0");
  EXPECT_EQ(c.rep.breaks()[1].compileId, "1/0");
  EXPECT_TRUE(c.rep.recompiles().empty());
}

TEST(DataDependent, TolistBreaksAsDynamoNamesIt) {
  Counted c;
  run("dd_tolist_kinds",
      "import torch\n"
      "@torch.compile\n"
      "def ints(x):\n"
      "    return len((x + 1).tolist())\n"
      "@torch.compile\n"
      "def floats(x):\n"
      "    return sum(x.tolist())\n"
      "print(ints(torch.arange(4)), floats(torch.ones(3)))\n",
      c);
  // An integer tensor's elements are data-dependent scalars (aten._local_scalar_dense); a float
  // tensor's tolist() is not traced at all.
  ASSERT_EQ(c.rep.breaks().size(), 2u);
  EXPECT_EQ(c.rep.breaks()[0].title, "Data dependent operator");
  EXPECT_EQ(c.rep.breaks()[1].title, "Tensor.tolist() with non-integer tensor");
}

TEST(DataDependent, CompiledFunctionWithoutTensorArgumentsIsStillCompiled) {
  Counted c;
  run("dd_always_optimize",
      "import torch\n"
      "state = torch.ones(3)\n"
      "def bump():\n"
      "    return helper() * 2\n"
      "def helper():\n"
      "    return state + 1\n"
      "print(torch.compile(bump)())\n",
      c);
  // torch.compile was given bump itself (always_optimize_code_objects): traced, one graph.
  EXPECT_EQ(c.rep.graphs().size(), 1u);
}

TEST(DataDependent, ItemBranchUnderFullgraphIsUserError) {
  Counted c;
  run("dd_item_branch_fullgraph",
      "import torch\n"
      "@torch.compile(fullgraph=True)\n"
      "def f(x):\n"
      "    v = (x + 1).sum().item()\n"
      "    if v > 2:\n"
      "        return x * 2\n"
      "    return x * 3\n"
      "try:\n"
      "    f(torch.tensor([1.0, 2.0]))\n"
      "except Exception as e:\n"
      "    print(type(e).__name__, str(e).splitlines()[0])\n",
      c, false);
  // fullgraph=True captures item() as an unbacked SymFloat (zuf0); the branch cannot be guarded.
  EXPECT_NE(c.printed.find("UserError Consider annotating your code using torch._check*(). Could not guard on data-dependent "
                           "expression zuf0 > 2.0"),
            std::string::npos)
      << c.printed;
  EXPECT_TRUE(c.rep.graphs().empty());
  EXPECT_TRUE(c.rep.breaks().empty());
}

TEST(DataDependent, ItemOfSeveralElementsUnderCaptureIsTorchRuntimeError) {
  Counted c;
  run("dd_item_many_fullgraph",
      "import torch\n"
      "@torch.compile(fullgraph=True)\n"
      "def f(x):\n"
      "    return float(x + 1)\n"
      "try:\n"
      "    f(torch.tensor([1.0, 2.0]))\n"
      "except Exception as e:\n"
      "    print(type(e).__name__)\n",
      c, false);
  EXPECT_EQ(c.printed, "TorchRuntimeError\n");
}

TEST(DataDependent, OtherUsesOfAnUnbackedScalarRunTheFrameEagerly) {
  Counted c;
  run("dd_item_used_fullgraph",
      "import torch\n"
      "@torch.compile(fullgraph=True)\n"
      "def f(x):\n"
      "    v = x.sum().item()\n"
      "    return x * v, v\n"
      "print(f(torch.tensor([1.0, 2.0])))\n",
      c);
  // Kiln cannot put the scalar in its graph yet: it says so and runs the frame eagerly, with
  // eager's values (never a wrong compiled answer).
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_EQ(c.rep.breaks()[0].code, "KB033");
}

}  // namespace
}  // namespace kiln
