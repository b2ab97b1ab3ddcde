# case: a torch.compiler.disable'd function at the bottom of a five-level call chain under the compiled top; the work before (x*2) and after (+16 in l2) the disabled call runs once; its side-effect list grows once per call
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_return_after_graph_break_deep_nested
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


calls = []


@torch.compiler.disable
def bottom(x):
    calls.append(x.shape[0])
    return x * 3 + 1


def l1(x):
    return bottom(x)


def l2(x):
    y = l1(x)
    return y + 16


def l3(x):
    return l2(x)


def l4(x):
    return l3(x)


@torch.compile
def top(x):
    return l4(x * 2)


out = top(det((5,), seed=1))
out_1 = top(det((5,), seed=2))
out_2 = list(calls)
