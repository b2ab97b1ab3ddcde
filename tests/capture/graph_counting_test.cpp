// When Dynamo 2.11 compiles (and counts) a graph with no tensor op, and frames and values it
// treats its own way, counted as CompileCounter counts and checked compiled = eager: calls on
// symbolic ints and floats and grad-mode changes that cancel out make count_calls() > 0, a frame
// named __setattr__ is never compiled, hasattr() on a dict is a TYPE_MATCH and on a dynamic float
// a break, a range iterator passed in is traced (RANGE_ITERATOR_MATCH) and advanced after the
// graph, Tensor.view(dtype) is captured.
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln {
namespace {

using test::Counted;
using test::reasons;
using test::run;

TEST(GraphCounting, ComparisonOnASymbolicIntIsAGraphThoughItLeavesNoOp) {
  Counted c;
  run("count_symbolic_compare",
      "import torch\n"
      "def countdown(x, n):\n"
      "    if n <= 0:\n"
      "        return x\n"
      "    torch._dynamo.graph_break()\n"
      "    return countdown(x * 1.5 + n, n - 1)\n"
      "f = torch.compile(countdown)\n"
      "print(f(torch.arange(4.0), 2))\n"
      "print(f(torch.arange(4.0) + 1, 2))\n",
      c);
  // countdown(.., 1) recompiles with n an automatic dynamic int: `n <= 0` is a call node of its
  // graph (empty once dead code is gone), so that graph counts; the resume function's two.
  ASSERT_EQ(c.rep.graphs().size(), 3u);
  int empty = 0;
  for (const auto& g : c.rep.graphs()) empty += g.frameName == "countdown" && g.opCount == 0;
  EXPECT_EQ(empty, 1);
  EXPECT_EQ(c.rep.breaks().size(), 3u);
}

TEST(GraphCounting, GradModeChangesThatCancelOutStillMakeTheGraph) {
  Counted c;
  run("count_cancelling_grad_modes",
      "import torch\n"
      "def wrap(t):\n"
      "    torch._dynamo.graph_break()\n"
      "    return torch.sin(torch.cos(t))\n"
      "def f(x):\n"
      "    with torch.no_grad():\n"
      "        with torch.enable_grad():\n"
      "            a = torch.sin(x)\n"
      "            b = wrap(a)\n"
      "            c = torch.sigmoid(b)\n"
      "            c.sum().backward()\n"
      "            return x.grad\n"
      "cf = torch.compile(f)\n"
      "x = torch.arange(5.0).requires_grad_(True)\n"
      "with torch.no_grad():\n"
      "    print(cf(x).clone())\n"
      "    print(cf(x).clone())\n",
      c);
  // The resume function after backward() only returns x.grad, inside enable_grad: its graph is
  // set_grad_enabled(True), set_grad_enabled(False), dropped by cleanup_graph after Dynamo
  // decided to compile it. Four graphs, as Dynamo counts.
  EXPECT_EQ(c.rep.graphs().size(), 4u);
  EXPECT_EQ(c.rep.breaks().size(), 3u);
}

TEST(GraphCounting, ArithmeticOnDynamicFloatsIsAGraph) {
  Counted c;
  run("count_dynamic_float_product",
      "import operator\n"
      "import torch\n"
      "@torch.compile(fullgraph=True, dynamic=True)\n"
      "def f(x, y):\n"
      "    return operator.pos(x) * +y\n"
      "print(f(torch.arange(4.0), 3))\n"
      "print(f(-1.5, 2.5))\n"
      "print(f(True, False))\n",
      c);
  // (float, float): SymFloats multiplied (a graph, its value specialized on the way out);
  // (bool, bool): constants, no graph.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_EQ(c.rep.recompiles().size(), 2u);
}

TEST(GraphCounting, HasattrOnADictIsItsTypeAndOnADynamicFloatABreak) {
  Counted c;
  run("count_hasattr_kinds",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    if hasattr(x, 'to'):\n"
      "        return x.to(torch.float64) * 2\n"
      "    if hasattr(x, 'items'):\n"
      "        return torch.cos(x['a']) + x['b']\n"
      "    return x\n"
      "t = torch.arange(6.0).reshape(2, 3)\n"
      "print(f({'a': t, 'b': 1.5}))\n"
      "print(f(t))\n"
      "print(f(3.5))\n",
      c);
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  // A dict answers hasattr from its type: the entry's guard is the TYPE_MATCH.
  ASSERT_EQ(reasons(c, 0).size(), 1u);
  EXPECT_EQ(reasons(c, 0)[0].rfind("0/0: ___check_type_id(x, ", 0), 0u) << reasons(c, 0)[0];
  // A tensor's TENSOR_MATCH is checked before `hasattr(x, 'to')` (a child of x's guard node).
  ASSERT_EQ(reasons(c, 1).size(), 2u);
  EXPECT_EQ(reasons(c, 1)[0], "0/1: expected type of 'x' to be a tensor type, ' but found <class 'float'>");
  // The float, dynamic after the argument's kind changed, breaks at hasattr(); its graph (the
  // float read from its input) counts though it is empty.
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_EQ(c.rep.breaks()[0].title, "Unsupported hasattr call");
  EXPECT_EQ(c.rep.graphs().size(), 3u);
}

TEST(GraphCounting, ARangeIteratorPassedInIsTracedAndAdvanced) {
  Counted c;
  run("count_range_iterator",
      "import torch\n"
      "@torch.compile(fullgraph=True)\n"
      "def f(x, it):\n"
      "    n = next(it)\n"
      "    m = next(it)\n"
      "    return x * n + m\n"
      "it = iter(range(2, 9, 3))\n"
      "print(f(torch.arange(3.0), it))\n"
      "print(next(it), len(list(it)))\n"
      "it = iter(range(10, 0, -4))\n"
      "next(it)\n"
      "print(f(torch.arange(3.0), it), list(it))\n",
      c);
  EXPECT_TRUE(c.rep.breaks().empty());
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  // What the iterator has left, as (next, stop, step) with stop recomputed from it.
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  ASSERT_EQ(reasons(c, 0).size(), 1u);
  EXPECT_EQ(reasons(c, 0)[0], "0/0: ___normalize_range_iter(it) == (2, 11, 3)");
}

TEST(GraphCounting, ViewAsAnotherDtypeIsCaptured) {
  Counted c;
  run("count_view_dtype",
      "import torch\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    bits = x.view(torch.int32)\n"
      "    return bits, bits % 1000, bits // 7\n"
      "@torch.compile\n"
      "def through_view(x):\n"
      "    b = x.view(torch.int32)\n"
      "    b.add_(1)\n"
      "    return x * 1\n"
      "@torch.compile\n"
      "def through_base(x):\n"
      "    b = x.view(torch.int32)\n"
      "    x.mul_(2)\n"
      "    return b % 1000\n"
      "@torch.compile\n"
      "def of_intermediate(x):\n"
      "    t = x + 1\n"
      "    b = t.view(torch.int32)\n"
      "    return b // 3, t * 2, (b + 1) % 7\n"
      "x = torch.tensor([1.0, 2.5, -3.0])\n"
      "print([r.tolist() for r in f(x)])\n"
      "y = x.clone()\n"
      "print(through_view(y).tolist(), y.tolist())\n"
      "y = x.clone()\n"
      "print(through_base(y).tolist(), y.tolist())\n"
      "print([r.tolist() for r in of_intermediate(x)])\n"
      "v = f(y)[0]\n"
      "y.add_(1)\n"
      "print(v.tolist())\n",
      c);
  // No break: each function is one graph (an in-place update of a dtype view, or of what it
  // views, runs its graph eagerly rather than lose the aliasing), and prints eager's values.
  EXPECT_TRUE(c.rep.breaks().empty());
  EXPECT_EQ(c.rep.graphs().size(), 4u);
}

TEST(GraphCounting, ACapturedItemTheFrameReturnsComesFromTheGraph) {
  Counted c;
  run("count_item_returned",
      "import torch\n"
      "torch._dynamo.config.capture_scalar_outputs = True\n"
      "@torch.compile(fullgraph=True)\n"
      "def peak(x):\n"
      "    return torch.max(x).int().item()\n"
      "@torch.compile(fullgraph=True)\n"
      "def as_float(x):\n"
      "    x = x + 1\n"
      "    return float(x)\n"
      "@torch.compile(fullgraph=True)\n"
      "def as_int(x):\n"
      "    return int((x * 2).sum()), x + 1\n"
      "print(peak(torch.tensor([[1.5, 7.2, -3.0]])), peak(torch.tensor([[1.0, 2.0], [9.5, 3.0]])))\n"
      "print(as_float(torch.tensor([1.5])), as_float(torch.tensor([-2.25])))\n"
      "print(as_int(torch.tensor([1.25, 2.5])))\n"
      "try:\n"
      "    as_float(torch.tensor([1.0, 2.0]))\n"
      "except Exception as e:\n"
      "    print(type(e).__name__)\n",
      c, /*sameAsEager=*/false);
  // Tensor.item() (and float() / int() of it) returned as it is: no break, the graph returns the
  // tensor and the entry reads its item; eager's values. Two elements fail the trace as Dynamo's
  // fake tensor does (TorchRuntimeError; eager's float() raises ValueError).
  EXPECT_TRUE(c.rep.breaks().empty());
  EXPECT_EQ(c.printed, "7 9\n2.5 -1.25\n(7, tensor([2.2500, 3.5000]))\nTorchRuntimeError\n");
  EXPECT_EQ(c.rep.graphs().size(), 4u);  // peak twice (the second shape recompiles), as_float, as_int
}

TEST(GraphCounting, OptimizerZeroGradIsSkippedNotInlined) {
  Counted c;
  run("count_zero_grad_skipped",
      "import torch\n"
      "w = torch.arange(4.0).requires_grad_()\n"
      "opt = torch.optim.SGD([w], lr=0.1)\n"
      "@torch.compile\n"
      "def step(x):\n"
      "    opt.zero_grad()\n"
      "    return (w * x).sum()\n"
      "for k in range(3):\n"
      "    loss = step(torch.ones(4) + k)\n"
      "    loss.backward()\n"
      "    opt.step()\n"
      "    print(loss.item(), w.detach())\n",
      c);
  // Dynamo's skip list: a break at the call (it runs eagerly), so w.grad (None, then a tensor)
  // is never guarded: no recompile; the resume function's graph serves every call.
  ASSERT_FALSE(c.rep.breaks().empty());
  EXPECT_EQ(c.rep.breaks()[0].title, "Attempted to inline function marked as skipped");
  EXPECT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_TRUE(c.rep.recompiles().empty());
  EXPECT_EQ(c.rep.graphs().size(), 1u);
}

}  // namespace
}  // namespace kiln
