# case: Python for-loops over a tensor inside compiled code: enumerate over the rows of a 2-D tensor and over the 0-d elements of a 1-D tensor (loops unrolled, one graph each)
# category: python
# from: idiom: for row in tensor inside torch.compile
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def weighted_rows(x):
    acc = torch.zeros(x.shape[1])
    for i, row in enumerate(x):
        acc = acc + row * (i + 1)
    return acc


@torch.compile
def sum_squares(v):
    total = 0
    for e in v:
        total = total + e * e
    return total


out = weighted_rows(det((4, 3), seed=1))
out_1 = weighted_rows(det((4, 3), seed=2))
out_2 = sum_squares(det((5,), seed=3))
out_3 = sum_squares(det((5,), seed=4))
