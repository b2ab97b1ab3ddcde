# case: dynamic=True, fullgraph: torch.sum over a tuple of dims with negative and unordered entries; a second 4-d shape reuses the graph, a different dim tuple is a constant argument and recompiles
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_sum_dimlist_spec
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True, fullgraph=True)
def f(inputs, dim):
    return torch.sum(inputs, dim)


a = det((4, 5, 3, 3), seed=1)
b = det((2, 6, 5, 4), seed=2)
out = f(a, (-1, 1))
out_1 = f(b, (-1, 1))  # new sizes: same graph
out_2 = f(b, (2, 0))  # other dims: recompile
out_3 = f(a, (-1, 1, 0, 2))  # full reduction
