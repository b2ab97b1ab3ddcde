# case: torch.addcdiv with value= kwarg plus addcdiv_ on a slice (view) of an input; the base tensor must be updated and a later read of the base inside the graph must see the write
# category: inplace
# from: test/dynamo/test_functions.py::FunctionTests::test_addcdiv_
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, c):
    r = torch.addcdiv(a, b, c, value=5.0)
    a[1:3].addcdiv_(b[1:3], c[1:3], value=-2.0)  # writes through a view of the input
    return r + a.sum()  # reads the base after the view write


a = det((4, 6), seed=1)
b = det((4, 6), seed=2)
c = det((4, 6), seed=3).abs() + 0.5
out = f(a, b, c)
out_1 = a.clone()
out_2 = f(a, b, c)
out_3 = a
