# case: a Function returning two clones whose backward adds both incoming gradients; outputs combined with different downstream ops (linear and exp) in a fullgraph compiled function; grad must be 3 + exp(x)
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_multi_output
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Fork(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone(), x.clone()

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2


@torch.compile(fullgraph=True)
def f(x):
    a, b = Fork.apply(x)
    return a * 3 + b.exp()


x = det((3, 3), seed=1).requires_grad_()
y = f(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x2 = det((3, 3), seed=2).requires_grad_()
f(x2).mean().backward()
out_2 = x2.grad.clone()
