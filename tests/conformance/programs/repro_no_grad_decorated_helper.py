# case: helper decorated with @torch.no_grad() is inlined into a fullgraph fn; its result carries no grad, so the gradient of the output only flows through the + x term
# category: autograd
# from: test/dynamo/test_repros.py::ReproTests::test_no_grad_inline
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.no_grad()
def helper(x):
    return x.sin() * 2


@torch.compile(fullgraph=True)
def f(x):
    return helper(x).cos() + x


x = det((6,), seed=1).requires_grad_(True)
r = f(x)
out = r
out_1 = r.requires_grad
r.sum().backward()
out_2 = x.grad
