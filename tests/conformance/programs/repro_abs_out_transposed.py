# case: torch.abs(x, out=y.T) writes through a transposed (non-contiguous) view of an input; the caller's y must hold abs(x) transposed
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_out_overload_non_contiguous
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, y):
    return torch.abs(x, out=y.T)


x = det((3, 3), seed=1)
y = torch.zeros(3, 3)
r = f(x, y)
out = r
out_1 = y
out_2 = [r.is_contiguous(), list(r.stride())]
