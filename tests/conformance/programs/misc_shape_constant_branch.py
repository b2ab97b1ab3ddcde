# case: branch on x.shape[0] != 3; the first call takes the "== 3" path, a (4, 3) input fails the size guard and recompiles (dynamic dims), a (5, 3) input reuses that second graph
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_compare_shapes_with_constant
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
    if a.shape[0] != 3:
        return a * 4
    return a * 3


out = f(det((3, 4), seed=1))
out_1 = f(det((4, 3), seed=2))
out_2 = f(det((5, 3), seed=3))
