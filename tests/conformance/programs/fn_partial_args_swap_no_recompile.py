# case: functools.partial objects passed as arguments; swapping two partials of the same function with same-shaped tensor kwargs reuses the graph, a partial of a different function recompiles
# category: guard
# from: test/dynamo/test_functions.py::FunctionTests::test_partials_recompilation
import functools
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def mul_by(x, y):
    return x * y


def add_to(x, y):
    return x + y


@torch.compile
def f(f0, f1, x):
    return f0(x) * f1(x)


x = det((2, 2), seed=1)
p0 = functools.partial(mul_by, y=det((2, 2), seed=3))
p1 = functools.partial(mul_by, y=det((2, 2), seed=4))
out = f(p0, p1, x)
out_1 = f(p1, p0, x)  # same func, same kwarg key, same tensor metadata
p2 = functools.partial(add_to, y=det((2, 2), seed=5))
out_2 = f(p2, p2, x)  # different underlying function
