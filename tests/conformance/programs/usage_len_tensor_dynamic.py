# case: len(t) and len(t.shape) inside a dynamic=True compiled fn: len is a symbolic size, a derived Python int is returned; three batch sizes share one graph
# category: dynamic
# from: idiom: len(tensor) in compiled code
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def mean_by_len(x):
    n = len(x)
    rank = len(x.shape)
    return x.sum(dim=0) / n + rank, n * 2 + 1


out = mean_by_len(det((3, 4), seed=1))
out_1 = mean_by_len(det((5, 4), seed=2))
out_2 = mean_by_len(det((7, 4), seed=3))
