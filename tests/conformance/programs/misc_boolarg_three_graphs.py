# case: a Python flag argument (True, False, None) selects a branch; each flag value is guarded, so 3 graphs are compiled and the 4th call (True again) reuses the first
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_boolarg
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, flag):
    if flag:
        return a - b
    else:
        return b * 2 - a


a = det((4, 1), seed=1)
b = det((1, 5), seed=2)
out = f(a, b, True)
out_1 = f(a, b, False)
out_2 = f(a, b, None)
out_3 = f(a, b, True)
