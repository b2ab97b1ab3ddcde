# case: add_ on an as_strided view of a graph input must write through to the caller's tensor (two strided elements of column 1)
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_as_strided_on_base_with_mutation_works
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a):
    v = a.as_strided((2,), (4,), 1)
    v.add_(1.0)
    return a


a = det((2, 4), seed=1)
expected = a.clone()
expected[:, 1] += 1.0
r = f(a)
out = a
out_1 = r
out_2 = expected
