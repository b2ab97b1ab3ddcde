# case: .backward() called inside the compiled function (graph break around it), then .grad of the leaf inputs is read and used; returned value and both leaf grads must match eager
# category: autograd
# from: test/dynamo/test_misc.py::MiscTests::test_grad
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    prod = a * b
    prod.sum().backward()
    return torch.sigmoid(a.grad + b)


a = det((4,), seed=1).requires_grad_()
b = det((4,), seed=2).requires_grad_()
r = f(a, b)
out = r.detach()
out_1 = a.grad
out_2 = b.grad
