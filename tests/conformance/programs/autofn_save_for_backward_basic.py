# case: a custom autograd.Function saving its output with ctx.save_for_backward and using it (and a Python math value) in backward, applied inside a fullgraph compiled function; gradients from backward() outside the compiled call must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_save_for_bwd
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class TripleSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x + x
        r = r + x
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx, g):
        (r,) = ctx.saved_tensors
        return g * math.sqrt(r.numel()) + r * 0.1


@torch.compile(fullgraph=True)
def f(x):
    return TripleSum.apply(x).sin()


x = det((3, 4), seed=1).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x2 = det((3, 4), seed=2).requires_grad_()
y2 = f(x2)
(y2 * 2).sum().backward()
out_2 = x2.grad.clone()
