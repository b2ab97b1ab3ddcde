# case: second argument is an int, then a float, then None (is-None branch), then the int again; the type guard gives one graph per kind (3 graphs), the repeated int hits the cache
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_type_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, k):
    if k is None:
        return x * 0.5
    return x * k + 1


x = det((3, 4), seed=1)
out = f(x, 2)
out_1 = f(x, 2.5)  # float instead of int: recompile
out_2 = f(x, None)  # None: recompile, other branch
out_3 = f(x, 2)  # int 2 again: cache hit
