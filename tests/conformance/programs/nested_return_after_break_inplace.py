# case: the inner callee mutates its input in place and returns right at a graph break (None) or from a compiler.disable'd function (returning the same tensor); the rest of the top frame still runs, and x += result doubles through the alias
# category: inplace
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_return_after_graph_break_nested
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def apply_inner(inner, x):
    x += 2
    return inner(x)


@torch.compile
def driver(inner, x):
    result = apply_inner(inner, x)
    x += 4
    if result is not None:
        x += result
    return x


def inner_break(x):
    x += 1
    return torch._dynamo.graph_break()


@torch.compiler.disable
def inner_disabled(x):
    x += 8
    return x


buf1 = torch.zeros(3)
out = driver(inner_break, buf1)
out_1 = buf1.clone()
buf2 = det((3,), seed=1)
res = driver(inner_disabled, buf2)
out_2 = res.clone()
out_3 = buf2.clone()
out_4 = res is buf2
