// Subscript assignment on tensors inside a compiled function (`x[i] = v`, `buf[:, a:b] = k`,
// `x[mask] = 0`), as Dynamo 2.11 traces it: one `_operator.setitem` node per assignment, no
// graph break, the update functionalized by lowering and written back into a mutated input (or
// the input a mutated view views); an int argument used as a single index stays symbolic after
// it changed while a tuple index of ints specializes each (`(i // 2) == 2`); compiled prints
// what eager prints, gradients included.
#include "engine/driver/explain.h"
#include "tests/capture/run_script.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln {
namespace {

using test::Counted;
using test::reasons;
using test::run;

TEST(SetitemCapture, AssignmentsAreCapturedAndReachTheInput) {
  Counted c;
  run("setitem_views",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, v):\n"
      "    a = x[:, 1:3]\n"
      "    a[0] = v\n"
      "    x[2, ::2] = 7.0\n"
      "    y = x.clone()\n"
      "    flat = y.view(-1)\n"
      "    flat[::5] = -1\n"
      "    return x.sum(0), y\n"
      "x = torch.zeros(3, 4)\n"
      "print(f(x, torch.tensor([1.0, 2.0])))\n"
      "print(x)\n"
      "print(f(x, torch.tensor([3.0, 4.0])))\n"
      "print(x)\n",
      c);
  EXPECT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_EQ(c.rep.breaks().size(), 0u);
  EXPECT_EQ(c.rep.recompiles().size(), 0u);
}

TEST(SetitemCapture, MasksTensorIndicesEllipsisAndNewAxes) {
  Counted c;
  run("setitem_advanced",
      "import torch\n"
      "@torch.compile\n"
      "def h(x, m):\n"
      "    y = x.clone()\n"
      "    y[m] = 0\n"
      "    y[m.logical_not()] *= 2\n"
      "    return y\n"
      "print(h(torch.arange(6.), torch.tensor([True, False, True, False, False, True])))\n"
      "@torch.compile\n"
      "def k(x, order):\n"
      "    y = torch.zeros(2, 3, 4)\n"
      "    y[..., 1] = x\n"
      "    y[:, None, 0] = x[0, 0]\n"
      "    y[torch.tensor([1])] += 1\n"
      "    z = torch.empty_like(x)\n"
      "    z[order] = x\n"
      "    return y, z\n"
      "print(k(torch.arange(6.).reshape(2, 3), torch.tensor([1, 0])))\n",
      c);
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_EQ(c.rep.breaks().size(), 0u);
}

TEST(SetitemCapture, IntIndexArgumentGuardsAsDynamo) {
  Counted c;
  run("setitem_int_index",
      "import torch\n"
      "@torch.compile\n"
      "def put(buf, i, v):\n"
      "    buf[i] = v\n"
      "    buf[i // 2, i % 3] = -1.0\n"
      "    return buf.sum()\n"
      "buf = torch.zeros(6, 3)\n"
      "for i in [3, 4, 4, -1, -1]:\n"
      "    print(put(buf, i, torch.full((3,), float(i))))\n"
      "print(buf)\n",
      c);
  // i == 3 first; then i is a symbol: buf[i] keeps it, the tuple index specializes i // 2 and
  // i % 3, which -1 fails.
  EXPECT_EQ(c.rep.graphs().size(), 3u);
  EXPECT_EQ(c.rep.breaks().size(), 0u);
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: i == 3"}));
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: (i // 2) == 2", "0/0: i == 3"}));
}

TEST(SetitemCapture, GradientsFlowThroughTheAssignment) {
  Counted c;
  run("setitem_grad",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, y):\n"
      "    x = x * 1.0\n"
      "    x[1:3] = y * 2\n"
      "    return (x * x).sum()\n"
      "x = torch.arange(4.0, requires_grad=True)\n"
      "y = torch.tensor([5.0, 6.0], requires_grad=True)\n"
      "r = f(x, y)\n"
      "r.backward()\n"
      "print(r.item(), x.grad, y.grad)\n",
      c);
  EXPECT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_EQ(c.rep.breaks().size(), 0u);
}

// The gradient of a value an in-place method writes (x.add_(y) on a tensor the output reads
// later under its own node): y gets its gradient (it was None, a silent wrong result).
TEST(SetitemCapture, InPlaceMethodCarriesGradientToItsOperand) {
  Counted c;
  run("inplace_method_grad",
      "import torch\n"
      "@torch.compile\n"
      "def g(x, y):\n"
      "    x = x * 1.0\n"
      "    x.add_(y)\n"
      "    return (x * x).sum()\n"
      "x = torch.arange(2.0, requires_grad=True)\n"
      "y = torch.tensor([5.0, 6.0], requires_grad=True)\n"
      "r = g(x, y)\n"
      "r.backward()\n"
      "print(r.item(), x.grad, y.grad)\n",
      c);
  EXPECT_EQ(c.rep.graphs().size(), 1u);
  EXPECT_EQ(c.printed, "74.0 tensor([10., 14.]) tensor([10., 14.])\n");
}

// Eager in-place updates under autograd keep the value their gradient formula reads: z.mul_(w)
// gives w the gradient over z's value before the update (it read the updated one, 5832 for 1392).
TEST(SetitemCapture, EagerInPlaceUpdateKeepsTheValueBackwardReads) {
  Counted c;
  run("inplace_saved_self",
      "import torch\n"
      "x = torch.arange(2.0, requires_grad=True)\n"
      "y = torch.tensor([5.0, 6.0], requires_grad=True)\n"
      "z = x * 1.0\n"
      "z.add_(y)\n"
      "z.mul_(y[1])\n"
      "r = (z * z).sum()\n"
      "r.backward()\n"
      "print(r.item(), x.grad, y.grad)\n",
      c);
  EXPECT_EQ(c.printed, "2664.0 tensor([360., 504.]) tensor([ 360., 1392.])\n");
}

TEST(SetitemCapture, ValueRequiringGradIntoPlainTensorBreaksAndSaysSo) {
  Counted c;
  run("setitem_grad_into_plain",
      "import torch\n"
      "@torch.compile\n"
      "def f(y):\n"
      "    out = torch.zeros(3)\n"
      "    out[0] = y.sum()\n"
      "    return out * 2\n"
      "y = torch.tensor([5.0, 6.0], requires_grad=True)\n"
      "r = f(y)\n"
      "r.sum().backward()\n"
      "print(r, y.grad)\n",
      c);
  ASSERT_EQ(c.rep.breaks().size(), 1u);
  EXPECT_NE(c.rep.breaks()[0].explanation.find("requires grad"), std::string::npos);
}

}  // namespace
}  // namespace kiln
