# case: nested torch.set_grad_enabled(False)/(True) blocks with a torch._dynamo.graph_break() inside each level; grad mode seen inside, requires_grad of results and the restored mode after the blocks must match eager
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_nested_grad_mode_graph_break
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
def f(x):
    modes = []
    before = torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        torch._dynamo.graph_break()
        modes.append(torch.is_grad_enabled())
        with torch.set_grad_enabled(True):
            y = x * 5
            torch._dynamo.graph_break()
            y = torch.sqrt(y.abs() + 1)
            modes.append(torch.is_grad_enabled())
        modes.append(torch.is_grad_enabled())
        z = y * 2
    modes.append(torch.is_grad_enabled() == before)
    return z, y.requires_grad, z.requires_grad, modes


x = det((3, 4), seed=1).requires_grad_()
out = f(x)
out_1 = f(det((3, 4), seed=2).requires_grad_())
out_2 = torch.is_grad_enabled()
