# case: the grad mode is part of the guards: a call under torch.no_grad() recompiles and returns a tensor without requires_grad; calling again with grad enabled reuses the first graph
# category: ctx
# from: test/dynamo/test_misc.py::MiscTests::test_recompile_on_global_state_change
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    return x * 2 + 1


w = det((3,), seed=1).requires_grad_()
r1 = f(w)
with torch.no_grad():
    r2 = f(w)
r3 = f(w)
out = r1.detach()
out_1 = r1.requires_grad
out_2 = r2.requires_grad
out_3 = r3.requires_grad
out_4 = r2
