# case: in-place mul_ on the first argument when both arguments are the same tensor, then distinct tensors: aliasing changes the result (duplicate-input guard, recompile)
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_avoid_dupe_specialization
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
    a.mul_(2)
    return a + b


x = det((4,), seed=1)
y = det((4,), seed=2)
out = f(x, x)  # a and b alias: 2x + 2x
out_1 = x.clone()
out_2 = f(x, y)  # distinct: 2x' + y
out_3 = x.clone()
