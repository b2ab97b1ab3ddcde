# case: backward returns None for a second tensor input that requires grad; that input's only gradient must come from its separate use outside the Function (y.grad == 2), while x gets g*y; fullgraph compiled
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_backward_returns_none_for_tensor_input
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class MulFirstOnly(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(y)
        return x.clone() * y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None


@torch.compile(fullgraph=True)
def f(x, y):
    return MulFirstOnly.apply(x, y) + y * 2


x = det((5,), seed=1).requires_grad_()
y = det((5,), seed=2).requires_grad_()
z = f(x, y)
z.sum().backward()
out = z.detach()
out_1 = x.grad.clone()
out_2 = y.grad.clone()
