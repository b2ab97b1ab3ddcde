# case: a helper function returns from inside a contextmanager whose generator graph-breaks before yield; the compiled caller splits into a graph before the helper and one after it (2 graphs), result must match eager
# category: graph_break
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_graph_break_inside_ctx_1
import contextlib
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@contextlib.contextmanager
def guarded(x):
    y = x.tan()
    try:
        torch._dynamo.graph_break()
        yield y
    finally:
        pass


def helper(x):
    with guarded(x) as z:
        return z.neg()


@torch.compile
def f(x):
    return x.sin() + helper(x) + x.cos()


out = f(det((2, 3), seed=1, scale=0.5))
out_1 = f(det((2, 3), seed=2, scale=0.5))
