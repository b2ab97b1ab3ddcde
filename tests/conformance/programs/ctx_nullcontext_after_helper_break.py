# case: contextlib.nullcontext() created before a call to a helper that graph-breaks and returns a Python list, then entered after the break; a second nullcontext(x) returns its enter_result; 2 graphs, results match eager
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_inactive_context_graph_break_local_nullctx2
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


def table():
    torch._dynamo.graph_break()
    return [0.5, 1.5, 2.5]


@torch.compile
def f(x):
    x = x + 1
    ctx = contextlib.nullcontext()
    vals = table()
    with ctx:
        x = x * vals[1]
    with contextlib.nullcontext(x) as same:
        x = same + vals[2]
    return x


out = f(det((3, 4), seed=1))
out_1 = f(det((3, 4), seed=2))
