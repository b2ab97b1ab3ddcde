# case: clone then boolean-mask setitem x[mask] = y*3 on tensors requiring grad; forward value and gradients of both inputs must match eager
# category: autograd
# from: test/dynamo/test_repros.py::ReproTests::test_setitem_boolean_mask_diff
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, mask, y):
    x = x.clone()
    x[mask] = y * 3
    return x * x


x = det((6,), seed=1).requires_grad_(True)
y = det((3,), seed=2).requires_grad_(True)
mask = torch.tensor([True, False, True, False, False, True])
r = f(x, mask, y)
r.sum().backward()
out = r
out_1 = x.grad
out_2 = y.grad
