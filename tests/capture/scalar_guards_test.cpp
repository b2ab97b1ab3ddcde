// How Dynamo 2.11 guards Python scalars and argument kinds, and what happens past the recompile
// limit, counted as CompileCounter counts (graphs) and as the recompiles log words it: floats
// specialized at first and dynamic after a change (TYPE_MATCH, `___as_tensor(y).item() != 5.0`),
// an argument that changes kind (tensor -> int) is a SymInt with a TYPE_MATCH, nn.Parameter vs
// tensor is a type mismatch, a NaN constant holds for NaN, and a frame past its recompile limit
// keeps serving its entries while neither it nor what it calls compiles again (run-only); a
// container's type is checked before its length; lambdas are frames.
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

TEST(ScalarGuards, RecompileLimitKeepsEntriesAndRunsCalleesOnlyFromTheirCaches) {
  Counted c;
  run("limit_run_only",
      "import torch\n"
      "def inner(x, n):\n"
      "    x = x + n\n"
      "    if torch.compiler.is_compiling():\n"
      "        x = x + 20\n"
      "    return x\n"
      "def outer(x, n):\n"
      "    x = x + n\n"
      "    if torch.compiler.is_compiling():\n"
      "        x = x + 10\n"
      "    return inner(x, n)\n"
      "opt = torch.compile(outer, dynamic=False)\n"
      "with torch._dynamo.config.patch(recompile_limit=2):\n"
      "    for n in [0, 1, 2, 3, 0, 1]:\n"
      "        print(opt(torch.zeros(1), n))\n",
      c, false);
  // n=0, 1 compiled (+30); n=2, 3 past the limit: outer eager and inner not compiled on its own
  // (no marker); n=0, 1 again: their entries still serve.
  EXPECT_EQ(c.printed, "tensor([30.])\ntensor([32.])\ntensor([4.])\ntensor([6.])\ntensor([30.])\ntensor([32.])\n");
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 2u);  // 0/1, then the limit hit, logged once
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: n == 1", "0/0: n == 0"}));
}

// One frame per code, whichever torch.compile made the callable: a callable with another backend
// or mode fails Dynamo's BACKEND_MATCH and recompiles ([0/1], as PyTorch 2.11 did with
// 001_04's three modes); one with the same backend and mode reuses the entries, and callables
// of both kinds keep their own entries when calls alternate.
TEST(ScalarGuards, AnotherBackendOrModeFailsBackendMatch) {
  Counted c;
  run("backend_match",
      "import torch\n"
      "def f(x):\n"
      "    return x * 2 + 1\n"
      "a = torch.compile(f)\n"
      "b = torch.compile(f, mode='reduce-overhead')\n"
      "again = torch.compile(f)\n"
      "e = torch.compile(f, backend='eager')\n"
      "x = torch.ones(2)\n"
      "for g in [a, b, again, a, b, e]:\n"
      "    print(g(x))\n",
      c, false);
  std::string six;
  for (int i = 0; i < 6; ++i) six += "tensor([3., 3.])\n";
  EXPECT_EQ(c.printed, six);
  // a compiles [0/0], b recompiles [0/1], again/a/b find their entries, e recompiles [0/2].
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  const std::string match =
      "BACKEND_MATCH failure: torch.compile detected different backend callables. If this is unexpected, wrap your backend in "
      "functools.partial (or reuse the same cached backend) to avoid creating a new backend function each time. More details: "
      "https://github.com/pytorch/pytorch/issues/168373";
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: " + match}));
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: " + match, "0/0: " + match}));
  // TORCH_LOGS=recompiles as Dynamo words it: the function and its def line, one reason per entry.
  EXPECT_EQ(c.rep.logs("recompiles"),
            "[0/1] [__recompiles] Recompiling function f in backend_match.py:2\n    triggered by the following guard failure(s):\n"
            "    - 0/0: " +
                match +
                "\n"
                "[0/2] [__recompiles] Recompiling function f in backend_match.py:2\n    triggered by the following guard failure(s):\n"
                "    - 0/1: " +
                match + "\n    - 0/0: " + match + "\n");
}

TEST(ScalarGuards, FloatArgumentIsDynamicAfterItChanges) {
  Counted c;
  run("float_lr",
      "import torch\n"
      "@torch.compile\n"
      "def step(p, g, lr):\n"
      "    return p - g * lr\n"
      "p = torch.arange(4.0)\n"
      "for lr in [0.1, 0.05, 0.025, 0.0125]:\n"
      "    print(step(p, torch.ones(4), lr))\n",
      c);
  // lr == 0.1 at first; 0.05 recompiles with lr dynamic, which serves 0.025 and 0.0125.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: lr == 0.1"}));
}

TEST(ScalarGuards, BranchOnADynamicFloatIsGuardedAsARelation) {
  Counted c;
  run("float_branch",
      "import math\n"
      "import torch\n"
      "@torch.compile\n"
      "def f(x, y):\n"
      "    if y == 5.0:\n"
      "        return x + 2\n"
      "    return x + y\n"
      "x = torch.zeros(2)\n"
      "for y in [3.0, 4.0, 6.0, 5.0, math.nan, math.nan]:\n"
      "    print(f(x, y))\n",
      c);
  // 4.0 makes y dynamic with `y != 5.0`, which serves 6.0; 5.0 fails it; NaN fails the entry's
  // check that y is no NaN and is then specialized (a NaN constant holds for the second NaN).
  EXPECT_EQ(c.rep.graphs().size(), 4u);
  ASSERT_EQ(c.rep.recompiles().size(), 3u);
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: ___as_tensor(y).item() != 5.0", "0/0: y == 3.0"}));
  EXPECT_EQ(reasons(c, 2)[0], "0/2: ___as_tensor(y).item() == 5.0");
  EXPECT_EQ(reasons(c, 2)[1], "0/1: y == ___as_tensor(y).item()");
}

TEST(ScalarGuards, ArgumentThatChangesKindIsASymIntWithATypeGuard) {
  Counted c;
  run("tensor_then_int",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, y):\n"
      "    return x * y + 1\n"
      "print(f(torch.ones(2), torch.ones(2)))\n"
      "print(f(torch.ones(3), 3))\n"
      "print(f(torch.ones(4), torch.ones(4)))\n"
      "print(f(torch.ones(5), 4))\n"
      "print(f(torch.ones(5), 2.5))\n",
      c);
  // y an int after a tensor: dynamic (serves 4 too), guarded on its type; a float fails that.
  EXPECT_EQ(c.rep.graphs().size(), 4u);
  ASSERT_EQ(c.rep.recompiles().size(), 3u);
  ASSERT_FALSE(reasons(c, 1).empty());
  EXPECT_EQ(reasons(c, 1)[0].rfind("0/1: ___check_type_id(y, ", 0), 0u) << reasons(c, 1)[0];
  EXPECT_NE(reasons(c, 1)[0].find("type=<class 'int'>"), std::string::npos) << reasons(c, 1)[0];
}

TEST(ScalarGuards, ParameterAndTensorAreDifferentTypes) {
  Counted c;
  run("parameter_then_tensor",
      "import torch\n"
      "@torch.compile\n"
      "def f(a, b):\n"
      "    return a * b\n"
      "w = torch.nn.Parameter(torch.ones(3))\n"
      "print(f(torch.ones(3), w).detach())\n"
      "print(f(torch.ones(3), torch.ones(3, requires_grad=True)).detach())\n",
      c);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: expected type of 'b' to be a tensor type, ' but found <class 'torch.Tensor'>"}));
}

TEST(ScalarGuards, FloatAttributeOfAnNnModuleIsDynamicAfterAChange) {
  Counted c;
  run("module_float_attr",
      "import torch\n"
      "class M(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.scale = 0.5\n"
      "    def forward(self, x):\n"
      "        return x * self.scale\n"
      "m = M()\n"
      "opt = torch.compile(m)\n"
      "for s in [0.5, 0.25, 0.125]:\n"
      "    m.scale = s\n"
      "    print(opt(torch.ones(2)))\n",
      c);
  // Unlike an int attribute (static), a float one is a SymFloat once it changed: two graphs.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: self.scale == 0.5"}));
}

TEST(ScalarGuards, ContainerTypeIsCheckedBeforeItsLength) {
  Counted c;
  run("list_then_tuple",
      "import torch\n"
      "@torch.compile\n"
      "def f(args):\n"
      "    a, b = args\n"
      "    return a - b\n"
      "x = torch.ones(2)\n"
      "print(f([x, x * 2]))\n"
      "print(f((x, x * 2)))\n"
      "print(f([x, x * 3]))\n",
      c);
  // A tuple where a list was fails the list's TYPE_MATCH (Dynamo's SEQUENCE_LENGTH checks the
  // type first); the list again hits the first entry.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  ASSERT_EQ(reasons(c, 0).size(), 1u);
  EXPECT_EQ(reasons(c, 0)[0].rfind("0/0: ___check_type_id(args, ", 0), 0u) << reasons(c, 0)[0];
  EXPECT_NE(reasons(c, 0)[0].find("type=<class 'list'>"), std::string::npos) << reasons(c, 0)[0];
}

TEST(ScalarGuards, DynamicIntStaysSymbolicAsAComparisonOperand) {
  Counted c;
  run("int_compare_operand",
      "import torch\n"
      "@torch.compile\n"
      "def f(x, window: int):\n"
      "    i = torch.arange(4)[:, None]\n"
      "    j = torch.arange(4)[None, :]\n"
      "    return x.masked_fill(i - j < window, 0.0)\n"
      "for w in [1, 2, 3]:\n"
      "    print(f(torch.ones(4, 4), w))\n",
      c);
  // window == 1 at first; 2 makes it a symbol, which `sub < window` keeps: 3 hits that entry.
  EXPECT_EQ(c.rep.graphs().size(), 2u);
  EXPECT_EQ(c.rep.recompiles().size(), 1u);
}

TEST(ScalarGuards, LambdasAreFramesToo) {
  Counted c;
  run("compiled_lambdas",
      "import torch\n"
      "sq = torch.compile(lambda t: t * t + 1)\n"
      "def make_adder(k):\n"
      "    return torch.compile(lambda t: t + k)\n"
      "add2 = make_adder(2)\n"
      "add5 = make_adder(5)\n"
      "x = torch.arange(3.0)\n"
      "print(sq(x), add2(x), add5(x))\n",
      c);
  // One frame per lambda code: the adders share one, and recompile on their cell's value.
  EXPECT_EQ(c.rep.graphs().size(), 3u);
  ASSERT_EQ(c.rep.recompiles().size(), 1u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"1/0: k == 2"}));
}

TEST(ScalarGuards, ClosureCellReadThroughTheFunctionThatHoldsItAndEscapingFloatIsSpecialized) {
  Counted c;
  run("float_cell_escapes",
      "import torch\n"
      "def build():\n"
      "    scale = 0.5\n"
      "    def direct():\n"
      "        def inner():\n"
      "            nonlocal scale\n"
      "            scale += 1\n"
      "            return scale\n"
      "        return inner()\n"
      "    def indirect(x):\n"
      "        return x * direct()\n"
      "    return indirect\n"
      "f = torch.compile(build())\n"
      "for _ in range(3):\n"
      "    print(f(torch.ones(2)))\n",
      c);
  // inner (made while tracing) reads direct's cell: direct.__closure__[0].cell_contents. Once it
  // changed it is dynamic, but the value computed from it is stored back into the cell, so it is
  // specialized again (Dynamo's restart): every call recompiles.
  EXPECT_EQ(c.rep.graphs().size(), 3u);
  ASSERT_EQ(c.rep.recompiles().size(), 2u);
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: direct.__closure__[0].cell_contents == 0.5"}));
  ASSERT_FALSE(reasons(c, 1).empty());
  EXPECT_EQ(reasons(c, 1)[0], "0/1: ___as_tensor(direct.__closure__[0].cell_contents).item() == 1.5");
}

TEST(ScalarGuards, StarArgsAndKwargsAreGuardedByLengthKeysAndValues) {
  Counted c;
  run("star_args_kwargs",
      "import torch\n"
      "def core(x, y, *, alpha=1.0, beta=0.0):\n"
      "    return x * alpha + y * beta\n"
      "@torch.compile\n"
      "def wrapper(*args, **kwargs):\n"
      "    return core(*args, **kwargs).relu()\n"
      "x = torch.ones(2)\n"
      "print(wrapper(x, x))\n"
      "print(wrapper(x, x, alpha=2.0))\n"
      "print(wrapper(x, x, beta=0.5, alpha=2.0))\n"
      "print(wrapper(x, x, alpha=2.0))\n"
      "print(wrapper(x, x, alpha=3.0))\n",
      c);
  // `not kwargs`, then `len(kwargs) == 1`; the same keyword again hits its entry, and another
  // value of it is never served by the entry traced with the old one (dynamic: one more graph).
  EXPECT_EQ(reasons(c, 0), (std::vector<std::string>{"0/0: not kwargs"}));
  ASSERT_GE(c.rep.recompiles().size(), 2u);
  EXPECT_EQ(reasons(c, 1), (std::vector<std::string>{"0/1: len(kwargs) == 1", "0/0: not kwargs"}));
}

}  // namespace
}  // namespace kiln
