# case: the function to apply is passed as an argument; torch.sin, torch.cos and a user function each get their own graph through an identity guard (3 graphs), passing torch.sin again hits the first
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_id_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def double(t):
    return t * 2


@torch.compile
def f(x, op):
    return op(x) + 1


x = det((5,), seed=1)
out = f(x, torch.sin)
out_1 = f(x, torch.cos)  # different function object: recompile
out_2 = f(x, double)  # user function: recompile
out_3 = f(x, torch.sin)  # cache hit
