# case: mutations through two different views of an intermediate (row.add_, flat[::3] = 0) must show in the base and in the other view; the returned view reflects both mutations
# category: inplace
# from: idiom: in-place ops on views of intermediates
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    y = x.clone()
    row = y[1]
    row.add_(10)
    flat = y.view(-1)
    flat[::3] = 0
    return y, row


y, row = f(det((3, 4), seed=1))
out = y
out_1 = row.clone()
y2, row2 = f(det((3, 4), seed=2))
out_2 = row2.clone()
