#include "engine/python/interpreter.h"
#include "engine/python/parser.h"
#include "engine/torch/install.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kiln::py {
namespace {

std::string run(const std::string& src) {
  std::ostringstream out;
  Module m = parseModule(src, "t.py");  // outlives the interpreter (cpython_semantics_test.cpp)
  Interpreter in(out);
  kiln::torchapi::install(in);
  in.runModule(m);
  return out.str();
}

std::string errorOf(const std::string& src) {
  std::ostringstream out;
  Module m = parseModule(src, "t.py");
  Interpreter in(out);
  kiln::torchapi::install(in);
  try {
    in.runModule(m);
  } catch (const PyError& e) { return formatTraceback(e, src); }
  return "no error";
}

struct Case {
  const char* src;
  const char* out;
};

TEST(Interpreter, PythonSemantics) {
  Case cases[] = {
      {"print(7 // -2, 7 % -2, -7 // 2, 2 ** 10, 7 / 2, 1e16, 0.1 + 0.2, 3.0)", "-4 -1 -4 1024 3.5 1e+16 0.30000000000000004 3.0\n"},
      {"a, *b, c = range(5)\nprint(a, b, c)", "0 [1, 2, 3] 4\n"},
      {"print(1 < 2 < 3, 1 < 3 < 2, not [], [] or 'x', 0 and 1)", "True False True x 0\n"},
      {"d = {'a': 1}\nd['b'] = 2\nprint(d, len(d), list(d.items()), 'a' in d)", "{'a': 1, 'b': 2} 2 [('a', 1), ('b', 2)] True\n"},
      {"print([x * x for x in range(4) if x % 2], {k: v for k, v in zip('ab', (1, 2))}, sum(i for i in range(5)))",
       "[1, 9] {'a': 1, 'b': 2} 10\n"},
      {"def f(a, b=2, *args, c=3, **kw):\n    return a, b, args, c, kw\nprint(f(1), f(1, 5, 6, c=7, d=8))",
       "(1, 2, (), 3, {}) (1, 5, (6,), 7, {'d': 8})\n"},
      {"def mk():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    return inc\ni = mk()\ni()\nprint(i())",
       "2\n"},
      {"class A:\n    k = 1\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n        return self.v + self.k\n"
       "class B(A):\n    def __init__(self):\n        super().__init__(10)\n    @property\n    def twice(self):\n        return self.get() * 2\n"
       "b = B()\nprint(b.get(), b.twice, isinstance(b, A), type(b).__name__)",
       "11 22 True B\n"},
      {"try:\n    raise ValueError('bad')\nexcept ValueError as e:\n    print('caught', e)\nfinally:\n    print('done')",
       "caught bad\ndone\n"},
      {"x = 5\nprint(f'{x:>3}|{x * 1.5:.2f}|{x!r}|{\"s\"}')", "  5|7.50|5|s\n"},
      {"print('%d items, %.1f%%' % (3, 12.34), '{} {:>4}'.format('a', 7))", "3 items, 12.3% a    7\n"},
      {"print(sorted([3, 1, 2], reverse=True), max([1, 5, 2]), min(4, 2, key=lambda v: -v), abs(-3), round(2.5), round(3.14159, 2))",
       "[3, 2, 1] 5 4 3 2 3.14\n"},
      {"import math\nprint(math.prod((2, 3, 4)), math.sqrt(16.0), math.floor(-1.5))", "24 4.0 -2\n"},
      {"for i in range(3):\n    if i == 1:\n        continue\n    print(i)\nelse:\n    print('end')", "0\n2\nend\n"},
  };
  for (const auto& c : cases) EXPECT_EQ(run(c.src), c.out) << c.src;
}

TEST(Interpreter, TensorsPrintLikePyTorch) {
  EXPECT_EQ(run("import torch\nprint(torch.arange(4))"), "tensor([0, 1, 2, 3])\n");
  // Python ints reach int64 tensors exactly (not through a double).
  EXPECT_EQ(run("import torch\nprint(torch.tensor([2**62 + 1, -2**63]) - 2**62)"), "tensor([                  1, 4611686018427387904])\n");
  EXPECT_EQ(run("import torch\nprint(torch.linspace(0.0, 1.0, 3))"), "tensor([0.0000, 0.5000, 1.0000])\n");
  EXPECT_EQ(run("import torch\nprint(torch.ones(2, 2) * 2)"), "tensor([[2., 2.],\n        [2., 2.]])\n");
  EXPECT_EQ(run("import torch\nprint(torch.arange(3).to(torch.float64) / 4)"), "tensor([0.0000, 0.2500, 0.5000], dtype=torch.float64)\n");
  EXPECT_EQ(run("import torch\nx = torch.arange(6).reshape(2, 3)\nprint(x.shape, x[1], x[:, 0], x.sum().item())"),
            "torch.Size([2, 3]) tensor([3, 4, 5]) tensor([0, 3]) 15\n");
}

// Issue 13: INT64_MIN // -1 and % -1 on int tensors was x86's idiv trap (SIGFPE). The quotient
// wraps (two's complement, as compiled kernels and PyTorch's own integer arithmetic wrap) and the
// remainder is 0; int32 likewise.
TEST(Interpreter, IntTensorDivisionOfTheMinimumByMinusOne) {
  EXPECT_EQ(
      run("import torch\nm = torch.tensor([-2**63, 7])\n"
          "print((m // -1).tolist(), (m % -1).tolist(), torch.remainder(m, -1).tolist(), torch.fmod(m, -1).tolist())\n"
          "print(torch.div(m, -1, rounding_mode='floor').tolist(), torch.div(m, -1, rounding_mode='trunc').tolist())\n"
          "i = torch.tensor([-2**31, 5], dtype=torch.int32)\nprint((i // -1).tolist(), (i % -1).tolist(), torch.fmod(i, -1).tolist())\n"),
      "[-9223372036854775808, -7] [0, 0] [0, 0] [0, 0]\n[-9223372036854775808, -7] [-9223372036854775808, -7]\n"
      "[-2147483648, -5] [0, 0] [0, 0]\n");
}

// Issue 13, found by the sanitizer build: 990 calls of a function whose return expression nests
// 190 additions overflowed the native stack (SIGSEGV; CPython prints 0), as did plain runaway
// recursion under AddressSanitizer. The interpreter checks the room left on the stack running
// (stack_guard.h; a generator's own stack inside one) and raises RecursionError in time.
TEST(Interpreter, DeepCallsOfDeepExpressionsNeverOverflowTheStack) {
  std::string sum;
  for (int i = 0; i < 190; ++i) sum += " + 0";
  const std::string out =
      run("def f(n):\n    return 0 if n == 0 else f(n - 1)" + sum +
          "\ntry:\n    print(f(990))\nexcept RecursionError:\n    print('RecursionError')\n"
          "def g(n):\n    return g(n + 1) + 0\ntry:\n    g(0)\nexcept RecursionError as e:\n    print('runaway:', e)\n"
          "def gen(n):\n    if n:\n        yield from gen(n - 1)\n    yield n\nprint(sum(gen(200)))\n"
          "def deep_in_gen():\n    try:\n        g(0)\n    except RecursionError:\n        yield 'RecursionError in a generator'\n"
          "print(next(deep_in_gen()))\nprint('alive')\n");
  EXPECT_TRUE(out.rfind("0\n", 0) == 0 || out.rfind("RecursionError\n", 0) == 0) << out;
  EXPECT_NE(out.find("runaway: maximum recursion depth exceeded\n20100\nRecursionError in a generator\nalive\n"), std::string::npos) << out;
}

TEST(Interpreter, ErrorsHavePythonTracebacks) {
  std::string e = errorOf("def f(x):\n    return x + undefined_name\n\nf(1)\n");
  EXPECT_EQ(e,
            "Traceback (most recent call last):\n"
            "  File \"t.py\", line 4, in <module>\n"
            "    f(1)\n"
            "  File \"t.py\", line 2, in f\n"
            "    return x + undefined_name\n"
            "               ^^^^^^^^^^^^^^\n"
            "NameError: name 'undefined_name' is not defined\n");
  EXPECT_NE(errorOf("x = [1, 2]\nx[5]\n").find("IndexError: list index out of range"), std::string::npos);
  EXPECT_NE(errorOf("1 / 0\n").find("ZeroDivisionError: division by zero"), std::string::npos);
  EXPECT_NE(errorOf("def f():\n    return f()\nf()\n").find("RecursionError: maximum recursion depth exceeded"), std::string::npos);
  EXPECT_NE(errorOf("import subprocess\n").find("ImportError: import of 'subprocess' is not allowed"), std::string::npos);
  EXPECT_NE(errorOf("import os.path\n").find("ImportError: import of 'os.path' is not allowed"), std::string::npos);
  // os is there for os.environ reads (torchrun's RANK, ...): nothing that acts on the system.
  EXPECT_NE(errorOf("import os\nos.system('true')\n").find("AttributeError: module 'os' has no attribute 'system'"), std::string::npos);
  EXPECT_NE(errorOf("import torch\ntorch.ones(2, 3) + torch.ones(4)\n")
                .find("RuntimeError: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
            std::string::npos);
  EXPECT_NE(errorOf("'a' + 1\n").find("TypeError: unsupported operand type(s) for +: 'str' and 'int'"), std::string::npos);
}

// A torch error thrown by a native function that did not convert it itself reaches the script as
// PyTorch's exception (catchable, with a traceback), not as an escaped C++ exception that the
// driver would report as Kiln's internal error.
TEST(Interpreter, TorchErrorsOfNativeFunctionsArePythonExceptions) {
  std::ostringstream out;
  Module m = parseModule(
      "import native_boom\ntry:\n    native_boom.boom()\nexcept NotImplementedError as e:\n    print('caught', e)\nnative_boom.boom()\n",
      "t.py");
  Interpreter in(out);
  kiln::torchapi::install(in);
  auto mod = std::make_shared<ModuleObj>("native_boom");
  mod->scope->vars["boom"] = makeBuiltin(
      "boom", [](Interpreter&, CallArgs&) -> Value { throw tensor::TorchError("NotImplementedError", "no CUDA kernel for this op"); });
  in.registerModule(mod);
  std::string error;
  try {
    in.runModule(m);
  } catch (const PyError& e) { error = formatTraceback(e, "import native_boom\n"); }
  EXPECT_EQ(out.str(), "caught no CUDA kernel for this op\n");
  EXPECT_NE(error.find("NotImplementedError: no CUDA kernel for this op"), std::string::npos) << error;
  EXPECT_NE(error.find("line 6"), std::string::npos) << error;
}

// engine/python/lib/numpy.py: the statistics part of NumPy that timing scripts use, NumPy's result
// types (np.float64 / np.int64 reprs of NumPy 2) and a clear error for the rest (a module-level
// __getattr__, PEP 562).
TEST(Interpreter, NumpySubset) {
  EXPECT_EQ(run("import numpy as np\nt = [1.0, 2.0, 4.0, 3.5]\n"
                "print(np.mean(t), repr(np.mean(t)), np.std(t), np.median(t), np.percentile(t, 90), np.var(t, ddof=1))\n"
                "print(np.min(t), repr(np.max([1, 5, 3])), np.sum([1, 2]), np.sum(t), np.sqrt(2.0))\n"
                "print(f'{np.mean(t):.3f}', [np.mean(t) * 1000], repr(2 * np.mean(t)), np.pi)\n"),
            "2.625 np.float64(2.625) 1.192424001771182 2.75 3.85 1.8958333333333333\n"
            "1.0 np.int64(5) 3 10.5 1.4142135623730951\n"
            "2.625 [np.float64(2625.0)] np.float64(5.25) 3.141592653589793\n");
  EXPECT_NE(errorOf("import numpy as np\nnp.zeros((2, 2))\n").find("NotImplementedError: numpy.zeros is not supported by Kiln"),
            std::string::npos);
  EXPECT_NE(errorOf("import numpy as np\nnp.mean({'a': 1})\n").find("NotImplementedError"), std::string::npos);
  EXPECT_NE(errorOf("import numpy as np\nnp.percentile([1.0], 101)\n").find("ValueError: Percentiles must be in the range [0, 100]"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::py
