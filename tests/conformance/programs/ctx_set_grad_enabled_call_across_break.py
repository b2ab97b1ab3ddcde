# case: torch.set_grad_enabled(False) called as a plain function (not a with block), then a graph break from .tolist(), then the previous mode restored; the mode must carry across the break, no recompiles on repeated calls, global mode restored after
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_grad_mode_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    c = a + 1
    n = len(c.tolist())
    res = c * b + n
    torch.set_grad_enabled(prev)
    return res, res.requires_grad


a = det((3, 4), seed=1).requires_grad_()
b = det((3, 4), seed=2)
out = f(a, b)
out_1 = f(a, b + 1)
out_2 = f(a * 2, b)
out_3 = torch.is_grad_enabled()
