# case: the same Function (two outputs, backward deliberately scaled by 0.5) applied twice in a row in a fullgraph compiled function; both custom backwards must run (grad 2.25*x**8), unused second outputs get materialized zero grads
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_fwd_propogation_correctness
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        res = x**3
        dx = 3 * x**2
        ctx.save_for_backward(x, dx)
        return res, dx

    @staticmethod
    def backward(ctx, g, gdx):
        x, dx = ctx.saved_tensors
        return (g * dx + gdx * 6 * x) * 0.5


@torch.compile(fullgraph=True)
def f(x):
    x, _ = Cube.apply(x)
    x, _ = Cube.apply(x)
    return x


x = det((4,), seed=1, scale=0.9).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x1 = torch.ones(2, requires_grad=True)
f(x1).sum().backward()
out_2 = x1.grad.clone()
