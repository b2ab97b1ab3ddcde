# case: a Function returning two outputs and marking the second with ctx.mark_non_differentiable; requires_grad flags of the outputs from the fullgraph compiled call and the gradient through the first output must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_mark_non_differentiable
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class SinAndDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.sin()
        b = x * 2
        ctx.mark_non_differentiable(b)
        ctx.save_for_backward(x)
        return a, b

    @staticmethod
    def backward(ctx, ga, gb):
        (x,) = ctx.saved_tensors
        return ga * x.cos()


@torch.compile(fullgraph=True)
def f(x):
    return SinAndDouble.apply(x)


x = det((5,), seed=1).requires_grad_()
a, b = f(x)
out = [a.detach(), b, a.requires_grad, b.requires_grad]
(a * b).sum().backward()
out_1 = x.grad.clone()
