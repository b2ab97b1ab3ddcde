# case: functools.partial objects passed as arguments to a fullgraph compiled fn: swapping two same-shaped partials reuses the graph, partials over a new tensor size recompile
# category: guard
# from: test/dynamo/test_functions.py::DefaultsTests::test_partials_recompilation
import functools
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def scale_mul(x, y):
    return x * y


def combine(f0, f1, x):
    return f0(x) * f1(x) + f0(x)


cfn = torch.compile(combine, fullgraph=True)
p0 = functools.partial(scale_mul, y=det((2, 2), seed=3))
p1 = functools.partial(scale_mul, y=det((2, 2), seed=4))
x = det((2, 2), seed=1)
out = cfn(p0, p1, x)
out_1 = cfn(p1, p0, x)
p2 = functools.partial(scale_mul, y=det((3, 3), seed=5))
out_2 = cfn(p2, p2, det((3, 3), seed=2))
