# case: x.t().add_(y) and x.diagonal().zero_() on an input; first call gets a non-contiguous input (a transposed view of a base, the base must change), second a contiguous one (stride guard: recompile)
# category: inplace
# from: idiom: x.t().add_(1) on an input
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
    x.t().add_(y)
    x.diagonal().zero_()
    return x * 2


base = det((4, 3), seed=1)
x = base.t()
y = det((4, 3), seed=2)
r = f(x, y)
out = r
out_1 = base.clone()
x2 = det((3, 4), seed=3)
out_2 = f(x2, y)
out_3 = x2.clone()
