# case: add_(..., alpha=) on a clone and on the caller's own tensor inside one graph; the input mutation must be visible after each call and the second call (mutated input) must not recompile
# category: inplace
# from: test/dynamo/test_functions.py::FunctionTests::test_add_
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def step(a, b):
    c = a.clone()
    c.add_(b, alpha=5.0)
    a.add_(b, alpha=-0.5)  # mutates the argument the caller passed in
    return c * 2 - a


a = det((4, 5), seed=1)
b = det((4, 5), seed=2)
out = step(a, b)
out_1 = a.clone()  # a after one mutation
out_2 = step(a, b)  # same shapes/dtypes: reuses the graph, sees the mutated a
out_3 = a
