# case: torch.autocast(device_type="cpu", dtype=torch.bfloat16) block with a graph break between two matmuls; the autocast state must be restored after the break (second mm still bf16) and an mm after the block stays float32
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_autocast_cpu_graph_break_2
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def quarter(shape, seed):
    # multiples of 1/4 in [-1, 1]: exactly representable, exact products in bf16 range
    return torch.round(det(shape, seed=seed) * 4) / 4


@torch.compile
def f(a, b):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        c = torch.mm(a, b)
        torch._dynamo.graph_break()
        d = torch.relu(c) + 1
        e = torch.mm(d, b)
    g = torch.mm(a, b)
    return e, g, str(c.dtype), str(e.dtype), str(g.dtype)


a = quarter((4, 4), 1)
b = quarter((4, 4), 2)
out = f(a, b)
out_1 = f(b, a)
