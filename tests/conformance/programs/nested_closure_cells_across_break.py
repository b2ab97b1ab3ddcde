# case: graph break in a closure two levels down that rebinds nonlocal cells of both enclosing functions (scale, extra) while an outer cell (acc) was rebound before; every cell value after the call matches eager
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_cells
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def outer_fn(x):
    acc = x + 1
    scale = x * 2

    def middle(y):
        nonlocal acc
        acc = acc + 8
        extra = y - 3

        def leaf(z):
            nonlocal scale, extra
            scale = scale * 0.5
            extra = extra + 32
            torch._dynamo.graph_break()
            return z + acc + scale + extra

        return leaf(y * 4), extra

    r, e = middle(x + 64)
    return r, e, acc, scale


@torch.compile
def run(x):
    return outer_fn(x)


out = run(det((3,), seed=1))
out_1 = run(det((3,), seed=2))
