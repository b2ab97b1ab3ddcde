# case: x.requires_grad = True on an input mid-function (graph break); z computed before it is a constant for autograd, so x.grad equals z
# category: graph_break
# from: test/dynamo/test_repros.py::ReproTests::test_setattr_requires_grad_graph_breaks
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    z = x + 4
    x.requires_grad = True
    y = x * z
    return y


x = det((5,), seed=1)
r = torch.compile(f)(x)
r.sum().backward()
out = r
out_1 = x.grad
out_2 = [x.requires_grad, r.requires_grad]
