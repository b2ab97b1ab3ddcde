# case: torch.iinfo/torch.finfo(x.dtype) folded to Python constants (mantissa bits) at trace time; calling with float64 instead of float32 recompiles and yields 52 instead of 23
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_finfo
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    if torch.iinfo(torch.int32).bits == 32:
        mant = round(-math.log2(torch.finfo(a.dtype).eps))
        return a * mant + b, mant
    return a, 0


a = det((3, 4), seed=1)
b = det((3, 4), seed=2)
out = f(a, b)
out_1 = f(a.double(), b.double())  # dtype changed -> recompile
out_2 = str(out_1[0].dtype)
