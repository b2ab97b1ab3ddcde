# case: three copies of x*y+1 compiled with dynamic=False, default (None) and dynamic=True, each called with sizes 2, 3, 4: static compiles 3 graphs, default compiles 2 (automatic dynamic on the second size), dynamic=True compiles 1
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_automatic_dynamic_reduce_recompiles
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def mul_static(x, y):
    return x * y + 1


def mul_auto(x, y):
    return x * y + 1


def mul_dyn(x, y):
    return x * y + 1


f_static = torch.compile(mul_static, dynamic=False)
f_auto = torch.compile(mul_auto)
f_dyn = torch.compile(mul_dyn, dynamic=True)

res_static = []
res_auto = []
res_dyn = []
for n in (2, 3, 4):
    x = det((n,), seed=n)
    y = det((n,), seed=n + 10)
    res_static.append(f_static(x, y))
    res_auto.append(f_auto(x, y))
    res_dyn.append(f_dyn(x, y))

out = res_static
out_1 = res_auto
out_2 = res_dyn
