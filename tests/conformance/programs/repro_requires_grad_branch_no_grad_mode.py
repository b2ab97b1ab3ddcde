# case: branch on x.requires_grad: compiled under no_grad, then a detached input recompiles (requires_grad guard), then grad mode on recompiles (grad-mode guard)
# category: guard
# from: test/dynamo/test_repros.py::ReproTests::test_requires_grad_guards_with_grad_mode1
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    if x.requires_grad:
        return x * 2 + 1
    return x * 2 + 2


cf = torch.compile(f)
x = det((3, 4), seed=1).requires_grad_(True)
with torch.no_grad():
    out = cf(x)  # requires_grad is True even under no_grad
out_1 = cf(x.detach())  # requires_grad False: other branch
out_2 = cf(x)  # grad mode enabled now: training graph
out_3 = [out.requires_grad, out_1.requires_grad, out_2.requires_grad]
