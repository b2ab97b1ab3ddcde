# case: three tensors packed in one argument, unpacked inside; a list and a tuple container are guarded separately (2 graphs), repeated calls with either container hit the cache
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_callpacked
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(args):
    a, b, c = args
    return a - b * c


a = det((4, 5), seed=1)
b = det((4, 1), seed=2)
c = det((1, 5), seed=3)
out = f([a, b, c])
out_1 = f((a, b, c))
out_2 = f([a, b, c])
out_3 = f((a, b, c))
