# case: returns the map object of a two-iterable map over list arguments (fullgraph); the shorter list bounds it, and a longer second list recompiles (length guard)
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_map_with_multiple_args
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def pair(a, b):
    return a[0] * b[0] + a[1] * b[1]


@torch.compile(fullgraph=True)
def g(xs, ys):
    return map(pair, xs, ys)


xs = [det((3,), seed=i) for i in range(3)]
ys = [det((3,), seed=10 + i) for i in range(3)]
r = g(xs, ys)
out = type(r).__name__
out_1 = list(r)
ys5 = [det((3,), seed=20 + i) for i in range(5)]
out_2 = list(g(xs, ys5))
