# case: int64 tensors combined with Python int vs float constants (int stays int64, float promotes to float32), plus // and % with negative operands (floor semantics); one graph
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_constant2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, c):
    i = a - b * c + 1
    r = a - b * c + 1.0
    q = a // c
    m = a % c
    s = a.to(torch.int32) * 3 + 2
    return i, r, q, m, s, str(i.dtype), str(r.dtype), str(s.dtype)


a = torch.tensor([7, -7, 9, -9, 0, 5])
b = torch.tensor([2, 3, -1, 4, -5, 0])
c = torch.tensor([2, 2, -4, -4, 3, -3])
out = f(a, b, c)
