# case: x.size() captured before a print() graph break is used after it to view a tensor computed before it; forward and gradient must match eager
# category: graph_break
# from: test/dynamo/test_repros.py::ReproTests::test_issue1466_size_aot_autograd
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    y = x * x
    sz = x.size()
    print("graph break between size() and view()")
    z = y.view(sz) + 1
    return z


x = det((2, 3), seed=1).requires_grad_(True)
r = torch.compile(f)(x)
r.sum().backward()
out = r
out_1 = x.grad
