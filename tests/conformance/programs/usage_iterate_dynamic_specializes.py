# case: iterating over the rows of an input under dynamic=True specializes dim 0 (a guard on its size): changing dim 1 reuses the graph, changing dim 0 recompiles
# category: dynamic
# from: idiom: for row in x with dynamic shapes
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def row_relu_sum(x):
    acc = x[0] * 0
    for row in x:
        acc = acc + row.relu()
    return acc


out = row_relu_sum(det((3, 4), seed=1))
out_1 = row_relu_sum(det((3, 6), seed=2))
out_2 = row_relu_sum(det((5, 4), seed=3))
