# case: torch.set_grad_enabled(False) inside a fullgraph function must stay in effect after it returns (global state mutation replayed); a second call with grad re-enabled reuses the graph and disables grad again
# category: ctx
# from: test/dynamo/test_misc.py::MiscTests::test_grad_state_mutated
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x * 3
    return y, before


w = det((3,), seed=1).requires_grad_()
torch.set_grad_enabled(True)
r, before = f(w)
out = before
out_1 = torch.is_grad_enabled()
out_2 = r.requires_grad
out_3 = r.detach()
torch.set_grad_enabled(True)
r2, before2 = f(w)
out_4 = (before2, torch.is_grad_enabled(), r2.requires_grad)
torch.set_grad_enabled(True)
