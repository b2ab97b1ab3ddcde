// The guards Dynamo 2.11 installs on containers, globals and the objects reached through them,
// as the recompiles log words the first one that fails: a set of literals is a constant
// (`G['SEEN'] == {1, 2}`), checked after the node's other guards (`set.__contains__` first);
// a frame whose recompile traces no op is skipped from then on (Dynamo's SkipFrame), and a
// breaking call whose value is returned has no resume function (so no frame for one); a method
// read from the class is guarded absent from the instance's __dict__; a function PyTorch defines
// in Python (F.silu) is guarded by its code object, printed with PyTorch's file and line; an
// iterator over a tuple passed in is traced (`___tuple_iterator_len(it) == 5`) and advanced.
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
using test::reasons;
using test::run;

TEST(ContainerGuards, SetOfLiteralsIsGuardedByValue) {
  Counted c;
  run("set_literal_value",
      "import torch\n"
      "SEEN = {1, 2}\n"
      "@torch.compile(fullgraph=True)\n"
      "def f(x):\n"
      "    SEEN.add(x.shape[0])\n"
      "    return torch.cos(x) * len(SEEN)\n"
      "print(f(torch.zeros(3)), sorted(SEEN))\n"
      "print(f(torch.zeros(3)), sorted(SEEN))\n"
      "print(f(torch.zeros(3)), sorted(SEEN))\n",
      c);
  // The set grew from {1, 2} to {1, 2, 3}: the entry no longer holds; then it stays {1, 2, 3}.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: G['SEEN'] == {1, 2}"}));
}

TEST(ContainerGuards, SetArgumentOfLiteralsChecksMembershipBeforeValue) {
  Counted c;
  run("set_literal_contains_first",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, s):\n"
      "    return x * len(s) + (\"c\" in s)\n"
      "s = {\"a\", \"b\"}\n"
      "print(f(torch.ones(2), s))\n"
      "s.add(\"c\")\n"
      "print(f(torch.ones(2), s))\n"
      "print(f(torch.ones(2), frozenset([\"a\", \"b\"])))\n",
      c);
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  // Both guards fail for {'a', 'b', 'c'}; SET_CONTAINS is checked first.
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: set.__contains__(s, 'c')"}));
  // A frozenset equal to the first set is another type: EQUALS_MATCH checks the type first.
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: set.__contains__(s, 'c')", "0/0: s == {'a', 'b'}"}));
}

TEST(ContainerGuards, FrameThatTracesNoOpIsSkippedFromThenOn) {
  Counted c;
  run("no_ops_skips_code",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, d):\n"
      "    if \"a\" in d:\n"
      "        x = x + d[\"a\"]\n"
      "    if \"c\" not in d:\n"
      "        x = x * 2\n"
      "    return x\n"
      "x = torch.ones(2)\n"
      "print(f(x, {\"a\": 1, \"b\": 2}))\n"
      "print(f(x, {\"a\": 1, \"b\": 7}))\n"
      "print(f(x, {\"b\": 2, \"c\": 3}))\n"
      "print(f(x, {}))\n",
      c);
  // The third call recompiles and traces nothing (x is returned as it came): Dynamo's SkipFrame,
  // after which the code is skipped, so the fourth call runs eagerly with no recompile.
  EXPECT_EQ(c.rep.graphs().size(), 1u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: ___dict_contains('a', d)"}));
}

TEST(ContainerGuards, ReturnedBreakingCallHasNoResumeFunction) {
  Counted c;
  run("return_break_no_resume",
      "import torch\n"
      "def apply_inner(inner, x):\n"
      "    x += 2\n"
      "    return inner(x)\n"
      "@torch.compile\n"
      "def driver(inner, x):\n"
      "    result = apply_inner(inner, x)\n"
      "    x += 4\n"
      "    if result is not None:\n"
      "        x += result\n"
      "    return x\n"
      "def inner_break(x):\n"
      "    x += 1\n"
      "    return torch._dynamo.graph_break()\n"
      "buf = torch.zeros(3)\n"
      "print(driver(inner_break, buf), buf)\n",
      c);
  // driver (0) breaks at the call to apply_inner, which runs as frame 1 and breaks at inner(x),
  // which runs as frame 2 and breaks at graph_break(). The last two calls are returned as they
  // are: no resume function follows them, so driver's resume function is frame 3.
  ASSERT_EQ(c.rep.graphs().size(), 3u);
  std::vector<std::string> ids;
  for (const auto& g : c.rep.graphs()) ids.push_back(g.compileId);
  EXPECT_EQ(ids, (std::vector<std::string>{"1/0", "2/0", "3/0"}));
}

TEST(ContainerGuards, MethodFromTheClassIsGuardedAbsentFromTheInstanceDict) {
  Counted c;
  run("method_not_in_instance_dict",
      "import torch\n"
      "class Other(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return torch.sin(x)\n"
      "class Target(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return torch.cos(x)\n"
      "mod = Target()\n"
      "@torch.compile\n"
      "def run(x):\n"
      "    return mod(x) * 2\n"
      "x = torch.ones(3)\n"
      "print(run(x))\n"
      "mod.forward = Other.forward.__get__(mod)\n"
      "print(run(x))\n",
      c);
  // forward came from the class: the instance attribute set later shadows it.
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: not ___dict_contains('forward', G['mod'].__dict__)"}));
}

TEST(ContainerGuards, PyTorchPythonFunctionIsGuardedByItsCode) {
  Counted c;
  run("functional_code_guard",
      "import torch\n"
      "import torch.nn.functional as F\n"
      "ACT = {\"silu\": F.silu}\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    return ACT[\"silu\"](x) + 1\n"
      "print(f(torch.ones(2)))\n"
      "ACT[\"silu\"] = F.mish\n"
      "print(f(torch.ones(2)))\n",
      c);
  // F.silu is a def in PyTorch's torch/nn/functional.py: its code object is what is guarded.
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  const std::vector<std::string> r = reasons(c, 0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].rfind("0/0: ___check_obj_id(G['ACT']['silu'].__code__, ", 0), 0u) << r[0];
  EXPECT_NE(r[0].find("type=<code object silu at 0x"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find(", file \"torch/nn/functional.py\", line 2375>"), std::string::npos) << r[0];
}

TEST(ContainerGuards, TupleIteratorArgumentIsTracedAndAdvanced) {
  Counted c;
  run("tuple_iterator_arg",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, it):\n"
      "    a = next(it)\n"
      "    b = next(it)\n"
      "    return x * a + b\n"
      "it = iter((1, 2, 3, 4, 5, 6))\n"
      "first = next(it)\n"
      "print(f(torch.ones(2), it))\n"
      "print(f(torch.ones(2), it))\n"
      "print(first, next(it))\n",
      c);
  // next() on the iterator is traced, no break; the entry advances the real iterator by two.
  EXPECT_EQ(c.rep.breaks().size(), 0u);
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: ___tuple_iterator_len(it) == 5"}));
}

// A call's guards are fetched through one prefix cache (capture::FetchCache, a table that grows
// past 64 prefixes): with 80 layers' parameters every prefix must still lead to its own value, so
// a parameter of layer 57 swapped for another shape is the guard that fails, named as Dynamo names
// it, and the same tensor bound to two parameters is found by the aliasing guard.
TEST(ContainerGuards, ManySubmodulesEachGuardTheirOwnParameters) {
  Counted c;
  run("many_submodules_guards",
      "import torch\n"
      "import torch.nn as nn\n"
      "class Deep(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(80)])\n"
      "    def forward(self, x):\n"
      "        for l in self.layers:\n"
      "            x = l(x)\n"
      "        return x\n"
      "torch.manual_seed(0)\n"
      "m = Deep()\n"
      "f = torch.compile(m)\n"
      "x = torch.ones(2, 4)\n"
      "with torch.no_grad():\n"
      "    print(f(x).sum().item() == m(x).sum().item())\n"
      "    print(f(x).sum().item() == m(x).sum().item())\n"
      "    m.layers[57].bias = nn.Parameter(torch.zeros(4, 2)[:, 0])\n"
      "    print(f(x).sum().item() == m(x).sum().item())\n"
      "    m.layers[60].weight = m.layers[61].weight\n"
      "    print(f(x).sum().item() == m(x).sum().item())\n",
      c);
  EXPECT_EQ(c.printed, "True\nTrue\nTrue\nTrue\n");
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: tensor 'self._modules['layers']._modules['57']._parameters['bias']' "
                                                     "stride mismatch at index 0. expected 1, actual 2"}));
  EXPECT_EQ(reasons(c, 1),
            (std::vector<std::string>{"0/1: Duplicate tensors found: [\"self._modules['layers']._modules['60']._parameters['weight']\", "
                                      "\"self._modules['layers']._modules['61']._parameters['weight']\"]",
                                      "0/0: tensor 'self._modules['layers']._modules['57']._parameters['bias']' stride mismatch at "
                                      "index 0. expected 1, actual 2"}));
}

}  // namespace
}  // namespace kiln
