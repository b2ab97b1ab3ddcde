# case: float argument m drives a branch through m.is_integer(); calls with 1.0, 1.5, 3.0, 2.25 must each take the eager branch (Dynamo guards/recompiles on the float)
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_is_integer
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(t, m):
    if m.is_integer():
        return 2 * t + m
    return t - m


t = det((4,), seed=1)
out = f(t, 1.0)
out_1 = f(t, 1.5)
out_2 = f(t, 3.0)
out_3 = f(t, 2.25)
