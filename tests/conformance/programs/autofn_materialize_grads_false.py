# case: a two-output Function with ctx.set_materialize_grads(False) whose backward handles None for an unused output's gradient; losses using only the first or only the second output give different input grads
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_materialize_grad
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class TwoCopies(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone() * 2, x.clone() + 1

    @staticmethod
    def backward(ctx, g1, g2):
        total = None
        if g1 is not None:
            total = g1 * 2
        if g2 is not None:
            total = g2 if total is None else total + g2
        return total


@torch.compile
def f(x):
    return TwoCopies.apply(x)


x = det((2, 3), seed=1).requires_grad_()
a, b = f(x)
(a * a).sum().backward()
out = [a.detach(), b.detach()]
out_1 = x.grad.clone()

x2 = det((2, 3), seed=2).requires_grad_()
a2, b2 = f(x2)
(b2 * 3).sum().backward()
out_2 = x2.grad.clone()
