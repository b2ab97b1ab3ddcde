# case: float argument used both in a comparison (y == 5.0) and in tensor math; 3.0 and 4.0 take the arithmetic branch, 5.0 takes the constant branch, NaN (never equal to itself) must take the arithmetic branch; outputs must match eager
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_unspec_float_input
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, y):
    if y == 5.0:
        return x + 2
    return x + y


x = det((3,), seed=1)
out = f(x, 3.0)
out_1 = f(x, 4.0)
out_2 = f(x, 5.0)
out_3 = torch.isnan(f(x, math.nan))
