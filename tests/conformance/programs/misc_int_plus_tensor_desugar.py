# case: augmented assignment on Python int literals with a tensor right side (1 += t, 1 -= t, 3 *= t) yields tensors; with an int64 input the results stay int64 (dtype guard: 2 graphs)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_inplace_desugaring
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(y):
    a = 1
    a += y
    b = 1
    b -= y
    c = 3
    c *= y
    return a, b, c


out = f(det((3, 4), seed=1))
r = f(torch.arange(-3, 3, dtype=torch.int64).reshape(2, 3))
out_1 = r
out_2 = [str(t.dtype) for t in r]
