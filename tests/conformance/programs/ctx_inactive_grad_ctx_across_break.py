# case: ctx = torch.set_grad_enabled(True) is created (which already flips grad mode) before a graph break and only entered after it; under an outer no_grad the body must record grad and the mode after the block must be the one saved at construction
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_inactive_context_graph_break_local
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, w):
    x = x + 1
    ctx = torch.set_grad_enabled(True)
    torch._dynamo.graph_break()
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


x = det((4,), seed=1)
w = det((4,), seed=2).requires_grad_()
out = f(x, w)
with torch.no_grad():
    out_1 = f(x, w)
    out_2 = torch.is_grad_enabled()
out_3 = torch.is_grad_enabled()
