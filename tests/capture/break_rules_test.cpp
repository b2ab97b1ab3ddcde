// Where Dynamo breaks and what it compiles around a break, counted as CompileCounter counts
// (graphs) and as the graph-break log lists them: stores that break (STORE_ATTR), grad-mode
// changes undone at once (cleanup_graph), a gradient read after an eager backward,
// torch.compile(disable=True).
#include "engine/driver/explain.h"
#include "engine/driver/script_runner.h"
#include "tests/capture/run_script.h"
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace kiln {
namespace {

using test::Counted;
using test::run;

TEST(BreakRules, StoreAttrThatBreaksRunsEagerlyAndResumes) {
  Counted c;
  run("break_store_attr",
      "import torch\n"
      "class Recorder:\n"
      "    def __setattr__(self, name, value):\n"
      "        torch._dynamo.graph_break()\n"
      "        object.__setattr__(self, name, value * 2)\n"
      "@torch.compile\n"
      "def stash(rec, x):\n"
      "    y = x.sin()\n"
      "    rec.value = y + 1\n"
      "    return y * 3\n"
      "for k in range(2):\n"
      "    r = Recorder()\n"
      "    print(stash(r, torch.arange(3.0) + k), r.value)\n",
      c);
  // The frame breaks at the store (line 9): its graph (sin, add) runs, the store runs eagerly,
  // then the resume function's graph (mul); the second call reuses both entries.
  ASSERT_FALSE(c.rep.breaks().empty());
  ASSERT_GE(c.rep.breaks()[0].userStack.size(), 2u);
  EXPECT_EQ(c.rep.breaks()[0].userStack[c.rep.breaks()[0].userStack.size() - 2].line, 9);
  bool frameGraph = false, resumeGraph = false;
  for (const auto& g : c.rep.graphs()) {
    if (g.frameName == "stash") frameGraph = g.opCount == 2;
    if (g.frameName == "torch_dynamo_resume_in_stash_at_9") resumeGraph = g.opCount == 1;
  }
  EXPECT_TRUE(frameGraph);
  EXPECT_TRUE(resumeGraph);
  EXPECT_TRUE(c.rep.recompiles().empty());
  // Recorder.__setattr__ is then called as a frame of its own, which Dynamo's convert_frame
  // skips: no break of its own, no graph for value * 2 (graph counting as Dynamo 2.11).
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_EQ(c.rep.breaks().size(), 1u);
  for (const auto& g : c.rep.graphs()) EXPECT_EQ(g.frameName.find("__setattr__"), std::string::npos) << g.frameName;
}

TEST(BreakRules, ClassAssignmentBreaksAtTheStore) {
  Counted c;
  run("break_class_assign",
      "import torch\n"
      "class Base:\n"
      "    def __init__(self, v):\n"
      "        self.v = v\n"
      "class Derived(Base):\n"
      "    def scale(self):\n"
      "        return 3\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    obj = Base(5)\n"
      "    obj.__class__ = Derived\n"
      "    return x + obj.v * obj.scale(), isinstance(obj, Derived)\n"
      "print(f(torch.arange(3.0)))\n",
      c);
  // Dynamo breaks at the assignment (made on the object rebuilt after the empty first graph);
  // the resume function's graph is the only one.
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_EQ(c.rep.breaks()[0].title, "__class__ assignment on user-defined object");
  EXPECT_EQ(c.rep.breaks()[0].line, 11);
  EXPECT_EQ(c.rep.graphs().size(), 1u);
}

TEST(BreakRules, ClassStatementInTheCompiledFrameBreaksAndResumesWithTheClass) {
  Counted c;
  run("break_class_statement",
      "import torch\n"
      "@torch.compile\n"
      "def make(x):\n"
      "    y = x.relu()\n"
      "    class Shifter:\n"
      "        offset = 5\n"
      "        def apply(self, t):\n"
      "            return t + self.offset\n"
      "    return Shifter().apply(y) * 3, Shifter.__qualname__\n"
      "print(make(torch.arange(3.0) - 1))\n"
      "print(make(torch.arange(3.0) + 1))\n",
      c);
  // Dynamo cannot trace builtins.__build_class__: the frame's graph (relu) ends at the class
  // statement (line 5), the class is made eagerly and the resume function receives it as
  // ___stack0, guarded by identity; the second call makes a new class, so it recompiles there.
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_EQ(c.rep.breaks()[0].line, 5);
  EXPECT_NE(c.rep.breaks()[0].explanation.find("builtins.__build_class__"), std::string::npos);
  ASSERT_EQ(c.rep.graphs().size(), 3u);
  EXPECT_EQ(c.rep.graphs()[0].frameName, "make");
  EXPECT_EQ(c.rep.graphs()[1].frameName, "torch_dynamo_resume_in_make_at_5");
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  std::vector<std::string> why = test::reasons(c, 0);
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why[0].find("___check_obj_id(___stack0, "), std::string::npos) << why[0];
  EXPECT_NE(why[0].find("type=<class '__main__.make.<locals>.Shifter'>"), std::string::npos) << why[0];
  EXPECT_NE(c.printed.find("make.<locals>.Shifter"), std::string::npos) << c.printed;
}

TEST(BreakRules, GeneratorMethodsBreakAndRunEveryCall) {
  Counted c;
  run("break_generator_methods",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, gen):\n"
      "    y = x * 2\n"
      "    gen.manual_seed(1234)\n"
      "    return y + 1, gen.initial_seed()\n"
      "g = torch.Generator()\n"
      "print(f(torch.arange(3.0), g), g.initial_seed())\n"
      "g.manual_seed(7)\n"
      "print(f(torch.arange(3.0), g), g.initial_seed())\n",
      c);
  // Both methods break (they run eagerly on every call, the seed is set again the second time).
  ASSERT_EQ(c.rep.breaks().size(), 2u);
  EXPECT_EQ(c.rep.breaks()[0].title, "Unsupported method call");
  EXPECT_EQ(c.rep.graphs().size(), 2u);
}

TEST(BreakRules, OutArgumentIsCapturedUnlessNonContiguous) {
  Counted c;
  run("out_argument",
      "import torch\n"
      "base = torch.zeros(2, 2)\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    torch.sigmoid(x, out=base)\n"
      "    return x + base\n"
      "@torch.compile\n"
      "def g(x, y):\n"
      "    return torch.abs(x, out=y.T)\n"
      "print(f(torch.ones(2, 2)), base)\n"
      "print(f(torch.zeros(2, 2)), base)\n"
      "y = torch.zeros(2, 2)\n"
      "print(g(torch.tensor([[1.0, -2.0], [-3.0, 4.0]]), y), y)\n"
      "try:\n"
      "    f(torch.ones(2, 2, requires_grad=True))\n"
      "except RuntimeError as e:\n"
      "    print('RuntimeError', e)\n",
      c);
  // out= into a contiguous tensor is captured (its mutation written back); a non-contiguous
  // out= is Dynamo's break; the RuntimeError under requires_grad leaves the frame (an observed
  // exception), as in eager.
  ASSERT_EQ(c.rep.breaks().size(), 2u);
  EXPECT_EQ(c.rep.breaks()[0].title, "Attempted to call op with non-contiguous `out=` tensor");
  EXPECT_EQ(c.rep.breaks()[1].title, "Observed exception");
}

TEST(BreakRules, GradModeSetAndRestoredAtOnceIsNoGraph) {
  Counted c;
  run("break_grad_mode_pairs",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    with torch.set_grad_enabled(False):\n"
      "        torch._dynamo.graph_break()\n"
      "        y = x * 5\n"
      "    return y + 1\n"
      "print(f(torch.arange(3.0, requires_grad=True)))\n",
      c);
  // The frame's graph would only switch grad mode off and back on at the break (Dynamo's
  // cleanup_graph drops the pair): no graph; the resume function's is the only one.
  EXPECT_EQ(c.rep.breaks().size(), 1u);
  ASSERT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_NE(c.rep.graphs()[0].frameName.find("torch_dynamo_resume_in_f"), std::string::npos);
}

TEST(BreakRules, GradientOfAnInputIsReadAfterAnEagerBackward) {
  Counted c;
  run("break_input_grad",
      "import torch\n"
      "@torch.compile\n"
      "def f(a, b):\n"
      "    prod = a * b\n"
      "    prod.sum().backward()\n"
      "    return torch.sigmoid(a.grad + b)\n"
      "a = torch.arange(4.0, requires_grad=True)\n"
      "b = torch.ones(4, requires_grad=True)\n"
      "print(f(a, b).detach(), a.grad)\n",
      c);
  // backward() breaks once; the resume function's graph takes a.grad as an input.
  EXPECT_EQ(c.rep.breaks().size(), 1u);
  ASSERT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_NE(c.rep.graphs()[1].readable.find("L_a_grad"), std::string::npos) << c.rep.graphs()[1].readable;
}

TEST(BreakRules, CompileDisabledIsTheFunctionItself) {
  Counted c;
  run("compile_disabled",
      "import torch\n"
      "def body(x):\n"
      "    return x.exp() - 1\n"
      "plain = torch.compile(body, disable=True)\n"
      "print(plain is body, plain(torch.zeros(2)))\n",
      c);
  EXPECT_EQ(c.printed.substr(0, 5), "True ");
  EXPECT_TRUE(c.rep.graphs().empty());
}

TEST(BreakRules, BuiltinMinMaxOfZeroDimTensorsAreOps) {
  Counted c;
  run("minmax_zero_dim",
      "import torch\n"
      "@torch.compile\n"
      "def f(a, b):\n"
      "    s = min(max(a.sum(), 0), 1)\n"
      "    t = max(-1, min(1, b.sum()))\n"
      "    return max(s, t) - min(s, t) + a\n"
      "print(f(torch.full((2,), 0.2), torch.full((2,), -0.1)))\n"
      "print(f(torch.full((2,), 2.0), torch.full((2,), -3.0)))\n",
      c);
  // No data-dependent branch: clamp(s, min=0), clamp(t, max=1), maximum, minimum in one graph.
  EXPECT_TRUE(c.rep.breaks().empty());
  ASSERT_EQ(c.rep.graphs().size(), 1u);
  const std::string& g = c.rep.graphs()[0].readable;
  EXPECT_NE(g.find("torch.clamp("), std::string::npos) << g;
  EXPECT_NE(g.find("torch.maximum("), std::string::npos) << g;
}

TEST(BreakRules, PythonTypesAsDtypesAreCaptured) {
  Counted c;
  run("python_type_dtypes",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    mask = x.round().to(bool)\n"
      "    return mask, mask.to(float), (x * 7).to(int)\n"
      "print(f(torch.linspace(-1.0, 1.0, 5)))\n",
      c);
  EXPECT_TRUE(c.rep.breaks().empty());
  ASSERT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_NE(c.rep.graphs()[0].readable.find("torch.float64"), std::string::npos) << c.rep.graphs()[0].readable;
}

}  // namespace
}  // namespace kiln
