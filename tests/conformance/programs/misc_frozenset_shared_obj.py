# case: an object reached both through a frozenset argument and directly as another argument; an in-place attribute increment via one path must be seen via the other, and persist for the next call (recompile on the changed int)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_frozenset_of_non_literals
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Box:
    pass


box = Box()
box.x = 0
members = frozenset([box])


@torch.compile
def f(t, s, b):
    inner = list(s)[0]
    b.x += 1
    return t + inner.x, inner.x


t = det((3,), seed=1)
out = f(t, members, box)
out_1 = box.x
out_2 = f(t, members, box)
out_3 = box.x
