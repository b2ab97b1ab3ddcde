# case: a list of int coefficients drives a polynomial x*c0 + x^2*c1 (+ ...); the same values reuse the graph, changed values fail the item guards, a longer list fails the length guard; results must follow the current list
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_item_guard_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, coeffs):
    acc = torch.zeros_like(x)
    p = x
    for c in coeffs:
        acc = acc + c * p
        p = p * x
    return acc


x = det((5,), seed=1)
out = f(x, [1, 2])
out_1 = f(x, [1, 2])  # same list values: cache hit
out_2 = f(x, [3, 4])  # values changed: guard fails
out_3 = f(x, [1, 2, 3])  # length changed: guard fails
