# case: partials built from function arguments (kwarg and positional tensor bound) are still live across a print() graph break and are called after it; two graphs
# category: graph_break
# from: test/dynamo/test_functions.py::FunctionTests::test_partials_graph_break_reconstruct_mix
import functools
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def mul3(x, y, z):
    return x * y * z


def add2(x, y):
    return x + y


@torch.compile
def f(g0, g1, x):
    h = x.cos()
    p0 = functools.partial(g0, y=h, z=2.0)
    p1 = functools.partial(g1, h)
    print("graph break between partial creation and use")
    return torch.mul(p0(x), p1(x))


out = f(mul3, add2, det((2, 3), seed=1))
