# case: loop count range(x.size(0) + 1) depends on the input's first dim; three different batch sizes: the loop unrolls per size so the shape must stay specialized (recompiles), values must match eager
# category: dynamic
# from: test/dynamo/test_functions.py::FunctionTests::test_range2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, y):
    r = x + y
    for i in range(x.size(0) + 1):
        r = r / y + i
    return r


y = det((4,), seed=9).abs() + 1.0
out = f(det((3, 4), seed=1), y)
out_1 = f(det((5, 4), seed=2), y)
out_2 = f(det((6, 4), seed=3), y)
