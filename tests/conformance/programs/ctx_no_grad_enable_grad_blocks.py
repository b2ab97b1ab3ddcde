# case: torch.no_grad() and torch.enable_grad() blocks inside a compiled function; requires_grad of each intermediate must match eager, and calling under an outer no_grad recompiles (grad-mode guard) while enable_grad inside still records
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_no_grad
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
    x = a + 1
    with torch.no_grad():
        y = x * b
    with torch.enable_grad():
        z = a * b
    w = x + y + z
    return w, y.requires_grad, z.requires_grad, w.requires_grad


a = det((3, 4), seed=1).requires_grad_()
b = det((3, 4), seed=2)
out = f(a, b)
with torch.no_grad():
    out_1 = f(a, b)
out_2 = f(a, b * 2)
out_3 = torch.is_grad_enabled()
