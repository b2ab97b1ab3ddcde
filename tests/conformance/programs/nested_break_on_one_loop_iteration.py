# case: graph_break only when i == 1, two calls below a for loop inside a helper of the compiled fn; the loop frame cannot resume inside the loop so it runs eagerly while callee frames are compiled per i; values and per-iteration side effects match eager
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_nested_graph_break_in_loop
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


visits = []


def leaf(x, i):
    if i == 1:
        torch._dynamo.graph_break()
    return x * 0.5 + 1


def body(x, i):
    visits.append(i)
    return leaf(x, i) - i


def looped(x):
    for i in range(3):
        x = body(x, i)
    return x


@torch.compile
def top(x):
    return looped(x)


out = top(det((4,), seed=1))
out_1 = list(visits)
