# case: aliasing between arguments: f(a, b, c) mutates a and reads c; calls with distinct tensors share a graph, a call with a is c recompiles (alias guard) and c sees the mutation; g(t, t) multiplies a tensor by itself in place
# category: guard
# from: test/dynamo/test_recompiles.py::RecompileTests::test_aliasing_guard_failures
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, c):
    a.add_(b)
    return c * 2


@torch.compile
def g(a, b):
    a.mul_(b)
    return a + b


x = det((3,), seed=1)
y = det((3,), seed=2)
z = det((3,), seed=3)
out = f(x, y, z)
out_1 = f(z, y, x)
t = det((3,), seed=4)
out_2 = f(t, y, t)
out_3 = t.clone()
s = det((3,), seed=5)
out_4 = g(s, s)
out_5 = s.clone()
