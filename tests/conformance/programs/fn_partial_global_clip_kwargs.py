# case: module-level functools.partial objects (torch.clip with min/max kwargs, a user function with a tensor kwarg) called inside the compiled function are inlined into one graph
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_functools_partial
import functools
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


clip_band = functools.partial(torch.clip, min=-0.25, max=0.5)


def affine(x, scale, bias=0.0):
    return x * scale + bias


shifted = functools.partial(affine, scale=3.0, bias=torch.linspace(-1.0, 1.0, 6))


@torch.compile
def f(a, b):
    return clip_band(shifted(a + b))


out = f(det((4, 6), seed=1), det((4, 6), seed=2))
out_1 = f(det((4, 6), seed=3), det((4, 6), seed=4))
