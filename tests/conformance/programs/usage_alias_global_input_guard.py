# case: f(a) adds a global tensor g1 into its argument in place; passing g1 itself as the argument aliases input and global (the global doubles, the result uses the doubled value; alias guard: recompile)
# category: guard
# from: test/dynamo/test_recompiles.py::RecompileTests::test_aliasing_guard_failures_with_globals
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

g1 = det((3,), seed=1)
g2 = det((3,), seed=2)


@torch.compile
def f(a):
    a.add_(g1)
    return g1 * 3 + g2


a = det((3,), seed=3)
out = f(a)
out_1 = a.clone()
out_2 = f(g1)
out_3 = g1.clone()
