# case: x.size() != (5, 1, 2, 3) under dynamic=True: the shape that equals the tuple takes the other branch (recompile on the size comparison guard); a third shape reuses a graph
# category: dynamic
# from: test/dynamo/test_repros.py::ReproTests::test_negative_shape_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def f(x):
    if x.size() != (5, 1, 2, 3):
        return x.cos()
    return x.sin()


out = f(det((5, 1, 3, 4), seed=1))
out_1 = f(det((5, 1, 2, 3), seed=2))
out_2 = f(det((4, 1, 3, 4), seed=3))
