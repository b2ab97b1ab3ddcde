# case: a @contextlib.contextmanager whose setup calls torch._dynamo.graph_break() before yielding and appends tensors to a list on enter and in finally; the graph break inside the generator makes Dynamo skip the frame; outputs and list side effects must match eager
# category: graph_break
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_graph_break_inside_ctx_with_side_effects
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


log = []


@contextlib.contextmanager
def traced(x):
    y = x.tan()
    try:
        log.append(x.sin())
        torch._dynamo.graph_break()
        yield y
    finally:
        log.append(x.cos())


@torch.compile
def f(x):
    y = x.sin()
    with traced(x) as z:
        y = y + z.neg()
    y = y + x.cos()
    return y


out = f(det((6,), seed=1, scale=0.5))
out_1 = f(det((6,), seed=2, scale=0.5))
out_2 = len(log)
out_3 = log[0]
out_4 = log[3]
