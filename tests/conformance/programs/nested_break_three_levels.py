# case: graph_break in level1, called from level2, called from the compiled level3; with nested_graph_breaks off the break surfaces at level3's call; the *16 / +1 / *2 / +8 of every level are applied exactly once
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_single_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def level1(a):
    a = a + 1
    torch._dynamo.graph_break()
    return a * 2


def level2(b):
    return level1(b) + 8


@torch.compile
def level3(c):
    return level2(c * 16)


out = level3(det((2, 3), seed=1))
out_1 = level3(det((2, 3), seed=2))
