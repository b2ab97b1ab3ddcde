# case: in-place ops on views of a graph input inside compiled code (x[:, 1:3].mul_(2), x[0].add_(x[1])): the caller's tensor must be mutated exactly as in eager, and the returned reduction sees the mutation
# category: inplace
# from: idiom: x[:, 1:3].mul_(2) on an input
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
    x[:, 1:3].mul_(2)
    x[0].add_(x[1])
    return x.sum(dim=1)


x = det((4, 5), seed=1)
out = f(x)
out_1 = x.clone()
x2 = det((4, 5), seed=2)
out_2 = f(x2)
out_3 = x2.clone()
