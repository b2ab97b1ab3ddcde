# case: same shape/dtype tensor without and then with requires_grad; the tensor-match guard checks requires_grad so the second call recompiles (with autograd), the backward gradient 2x+4 and a third no-grad call (cache hit) must match eager
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_tensor_match_guard
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
    return torch.add(x, 4) * x


a = det((3, 4), seed=1)
r0 = f(a)
ag = a.clone().requires_grad_(True)
r1 = f(ag)  # requires_grad mismatch: recompile
r1.sum().backward()
r2 = f(a.clone())  # no grad again: first graph

out = (r0.requires_grad, r1.requires_grad, r2.requires_grad)
out_1 = r0
out_2 = r1.detach()
out_3 = ag.grad
