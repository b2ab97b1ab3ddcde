# case: first call marks dim 0 dynamic and compiles; an unmarked tensor of the same shape reuses that graph; a tensor with dim 1 marked dynamic is not covered by the existing entry and recompiles (2 graphs)
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_py_guards_mark_dynamic
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(a):
    if a.shape[0] > 2:
        return a.cos() + a.shape[1]
    return a.sin()


x0 = det((3, 3, 3), seed=1)
torch._dynamo.mark_dynamic(x0, 0)
out = torch.compile(f)(x0)

x = det((3, 3, 3), seed=2)
out_1 = torch.compile(f)(x)  # no recompile

x1 = det((3, 3, 3), seed=3)
torch._dynamo.mark_dynamic(x1, 1)
out_2 = torch.compile(f)(x1)  # new dynamic dim: recompile
