# case: forward stashes x.size(0) and a Python list on ctx (non-tensor ctx attributes) and backward uses them; compiled with dynamic=True, fullgraph, two input lengths share one graph; grads (n + 6) must follow each call's size
# category: dynamic
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_smuggle_tensor_and_complex_structures
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class ScaleBySize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.n = x.size(0)
        ctx.tags = [1, 2, 3]
        return x * 2

    @staticmethod
    def backward(ctx, g):
        res = g * ctx.n
        for k in ctx.tags:
            res = res + g * k
        return res


@torch.compile(fullgraph=True, dynamic=True)
def f(x):
    return ScaleBySize.apply(x)


x = det((3,), seed=1).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x2 = det((5,), seed=2).requires_grad_()
y2 = f(x2)
y2.sum().backward()
out_2 = y2.detach()
out_3 = x2.grad.clone()
