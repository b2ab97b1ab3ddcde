# case: .index() with and without a start argument on a list, tuple, deque and torch.Size built inside a fullgraph fn; results fold into tensor math
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_list_index
import collections
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(t):
    a = [1, 2, 3, 4, 3]
    b = (5, 3, 7, 3)
    q = collections.deque([9, 8, 3, 1])
    s = torch.Size([4, 3, 2])
    return t + a.index(3) + b.index(3, 2) * 10 + q.index(3) * 100 + a.index(3, 3) * 1000 + s.index(2) * 0.5


out = f(det((3,), seed=1))
out_1 = f(det((3,), seed=2))
