# case: a Function that multiplies its (non-leaf) input in place and marks it dirty; its return value is discarded and the mutated tensor is used afterwards; the loss and the weight gradient (backward outside) must match eager
# category: inplace
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_mark_dirty_discarded_output_grad
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class TimesThreeInplace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(3)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


A = det((3, 3), seed=7)


@torch.compile
def fn(w):
    y = A @ w
    TimesThreeInplace.apply(y)
    return (y * y).sum(), y


w = det((3, 3), seed=1).requires_grad_()
loss, y = fn(w)
loss.backward()
out = loss.detach()
out_1 = y.detach()
out_2 = w.grad.clone()
w2 = det((3, 3), seed=2).requires_grad_()
loss2, _ = fn(w2)
loss2.backward()
out_3 = w2.grad.clone()
