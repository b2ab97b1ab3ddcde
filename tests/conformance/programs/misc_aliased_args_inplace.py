# case: copy_ into a fresh tensor, in-place subtract, then in-place add into the first argument; calling with the same tensor for both arguments (aliased inputs) must recompile/guard and see a.add_(b) double the shared tensor
# category: inplace
# from: test/dynamo/test_misc.py::MiscTests::test_inplace
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(a, b):
    o = torch.empty((4, 4))
    o.copy_(a)
    o -= b
    a.add_(b)
    return o, a * b


x = det((4, 4), seed=1)
y = det((4, 4), seed=2)
out = f(x, y)
out_1 = x.clone()
z = det((4, 4), seed=3)
out_2 = f(z, z)
out_3 = z.clone()
