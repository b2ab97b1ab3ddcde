# case: bitwise |, &, <<, >> and % on a symbolic size under dynamic=True fullgraph, plus a SymBool | SymBool; the int and bool outputs must match Python for three shapes
# category: dynamic
# from: test/dynamo/test_repros.py::ReproTests::test_symint_bitwise
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True, fullgraph=True)
def f(x):
    z = x.shape[0]
    z |= z >> 1
    z |= z << 1
    z &= z | (z > 1)
    flag = (z > 1) | (z <= 1)
    z = (z | z) % 6
    return x.sum() + z, flag, z


out = f(det((3, 3), seed=1))
out_1 = f(det((5, 2), seed=2))
out_2 = f(det((8, 1), seed=3))
