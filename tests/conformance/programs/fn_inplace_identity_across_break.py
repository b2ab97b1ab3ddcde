# case: y = x.add_(1) aliases x; `x is y` must hold before and after a graph_break() with more in-place adds on both sides; the caller's tensor gets all three increments
# category: graph_break
# from: test/dynamo/test_functions.py::DefaultsTests::test_is_mutated_tensor_tensor_across_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    y = x.add_(1)
    before = x is y
    x.add_(1)
    torch._dynamo.graph_break()
    x.add_(1)
    return x is y, before, y * 2


z = torch.ones(4)
out = f(z)
out_1 = z
