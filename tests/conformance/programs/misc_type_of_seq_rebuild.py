# case: type(seq)([...]) rebuilds the container with the argument's own type; a list input returns a list and a tuple input returns a tuple (2 graphs)
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_type_copy
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(seq):
    a, b = seq
    return type(seq)([a + 1, b * 2, a - b])


x = det((3,), seed=1)
y = det((3,), seed=2)
r1 = f([x, y])
r2 = f((x, y))
out = r1
out_1 = r2
out_2 = type(r1).__name__
out_3 = type(r2).__name__
