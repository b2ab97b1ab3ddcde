# case: dynamic=True, fullgraph: a Python int argument used only in arithmetic (x + y + y % 7) stays symbolic, so four different ints share one graph; the modulo must follow Python semantics
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_no_recompiles
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
    return x + y + (y % 7)


out = f(det((4,), seed=1), 100)
out_1 = f(det((4,), seed=2), 200)
out_2 = f(det((4,), seed=3), 300)
out_3 = f(det((4,), seed=4), 400)
out_4 = f(det((4,), seed=5), -9)  # negative int: Python modulo gives 5
