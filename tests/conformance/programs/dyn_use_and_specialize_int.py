# case: dynamic=True, fullgraph: an int argument is used in tensor math and then in `if y == 2`; the comparison specializes y, so y=2 twice is one graph and y=3 twice is a second graph
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_use_and_specialize
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True, dynamic=True)
def f(x, y):
    x = x + y
    if y == 2:
        return x - 1
    return x + 1


a = det((3,), seed=1)
b = det((3,), seed=2)
out = f(a, 2)
out_1 = f(b, 2)  # same specialization: cache hit
out_2 = f(a, 3)  # guard y == 2 fails: recompile
out_3 = f(b, 3)
