# case: an f-string built from x.shape[0] is tested with startswith() to pick a branch and returned; first dims 10, 7, 12: the string forces the size to be specialized, so each size recompiles
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_fstrings2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    tag = f"{x.shape[0]} rows"
    if tag.startswith("10"):
        return x + 1, tag
    return x - 1, tag


out = f(det((10, 3), seed=1))
out_1 = f(det((7, 3), seed=2))
out_2 = f(det((12, 3), seed=3))
