# case: p.add_(1) and torch.Tensor.add_(y, 1) mutate the first argument; when the second argument aliases the first, its read must see both increments (aliased call recompiles)
# category: inplace
# from: test/dynamo/test_functions.py::DefaultsTests::test_in_set_inplace
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(p, q):
    y = p.add_(1)
    z = torch.Tensor.add_(y, 1)
    return q * 2 + z, y is p, z is p


a = det((5,), seed=1)
b = det((5,), seed=2)
out = f(a, b)
out_1 = f(a, a)  # q is p: q * 2 must use the twice-incremented values
out_2 = a
