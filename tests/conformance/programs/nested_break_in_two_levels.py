# case: graph breaks in two stacked callees (middle breaks, then calls inner which breaks again) with differing argument counts and a float constant passed down; values match eager on two calls
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_doubly_nested_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def inner(p, q):
    s = p * q
    torch._dynamo.graph_break()
    return s + 2


def middle(a, b, c):
    t = a - b
    torch._dynamo.graph_break()
    return inner(t, c)


@torch.compile
def outer(x):
    return middle(x, x * 0.5, 3.0)


out = outer(det((4,), seed=1))
out_1 = outer(det((4,), seed=2))
