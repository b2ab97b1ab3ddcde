# case: a list of Python ints whose values change every call (y[0] scales, y[1] % 4 shifts); the first change recompiles with the ints made dynamic (automatic dynamic), later calls reuse that graph
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_int_list
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, ys):
    return torch.sin(x + ys[1] % 4) * ys[0]


x = det((6,), seed=1)
out = f(x, [10, 11, 12])
out_1 = f(x, [13, 14, 15])
out_2 = f(x, [16, 17, 18])
out_3 = f(x, [19, 20, 21])
out_4 = f(x, [22, 23, 24])
