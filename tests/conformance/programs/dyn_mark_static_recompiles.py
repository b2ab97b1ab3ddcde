# case: mark_static on dim 0 of the first input forces a static graph; a tensor of another size recompiles (2 graphs); a third size then reuses the recompiled graph if it was made dynamic
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_mark_static
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    return x.cos() * 2 + 1


y = det((3,), seed=1)
torch._dynamo.mark_static(y, 0)
out = torch.compile(f)(y)

z = det((4,), seed=2)
out_1 = torch.compile(f)(z)

w = det((6,), seed=3)
out_2 = torch.compile(f)(w)
