# case: capture_scalar_outputs=True, fullgraph: x.item() becomes an unbacked int and builtin max(u, 8) sizes torch.ones; values 5 and 12 give 8 and 12 elements from the same graph
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_item_max
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    return torch.ones(max(x.item(), 8)) * 2


with torch._dynamo.config.patch(capture_scalar_outputs=True):
    out = f(torch.tensor([5]))
    out_1 = f(torch.tensor([12]))
out_2 = [out.shape[0], out_1.shape[0]]
