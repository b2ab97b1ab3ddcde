# case: torch.compiler.is_compiling() is True while Dynamo traces, so the compiled call takes the other branch than the plain eager call of the same function
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_is_compiling
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    if torch.compiler.is_compiling():
        return x * 2
    return x - 1


cf = torch.compile(f)
x = det((2, 2), seed=1)
out = f(x)
out_1 = cf(x)
