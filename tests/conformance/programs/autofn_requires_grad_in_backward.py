# case: backward branches on grad_output.requires_grad (False for a plain backward), choosing cos over a deliberately wrong sin formula; the traced backward must take the same branch as eager; fullgraph compiled
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_requires_grad_in_bwd
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class SinShift(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x + 1)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if g.requires_grad:
            return g * torch.sin(x + 1)
        return g * torch.cos(x + 1)


@torch.compile(fullgraph=True)
def f(x):
    return SinShift.apply(x)


x = det((4,), seed=1).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
