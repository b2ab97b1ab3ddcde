# case: the callee of a call made inside try/finally graph-breaks; the finally block and the statement after the call in the try body run exactly once, and the result matches eager
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_nested_graph_break_in_try_block
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


trace = []


def leaf(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def mid(x):
    try:
        x = leaf(x - 3)
        trace.append("body")
    finally:
        trace.append("finally")
    return x + 5


@torch.compile
def top(x):
    return mid(x * 4) / 2


out = top(det((2, 2), seed=1))
out_1 = list(trace)
out_2 = top(det((2, 2), seed=2))
out_3 = len(trace)
