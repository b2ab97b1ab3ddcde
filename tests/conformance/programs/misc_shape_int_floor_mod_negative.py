# case: Python int arithmetic on x.shape[0] with negative operands (floor division and modulo with Python sign rules, negative divisor); the second size recompiles with a dynamic dim, the third reuses it
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_int_shape_binops
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    n = x.shape[0]
    y = 7 - n
    q = y // 3
    r = y % 3
    s = -n // 2
    t = (n * 5) % -4
    return x * q + r + s - t, (q, r, s, t)


out = f(det((5, 3), seed=1))
out_1 = f(det((11, 3), seed=2))
out_2 = f(det((13, 3), seed=3))
