# case: a Function whose backward is decorated with torch.autograd.function.once_differentiable (scales the gradient by 0.5), used in a product with its input inside a fullgraph compiled function; input gradient must be 0.5*x + x
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_once_differentiable
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class HalfGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return g * 0.5


@torch.compile(fullgraph=True)
def f(x):
    return HalfGrad.apply(x) * x


x = det((4, 3), seed=1).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
