# case: Python builtins min()/max() mixing 0-d tensors and int constants (clamping sums to [0, 1] and [-1, 1]); must give eager's values
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_min_max
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
    c = a + b
    s = a.sum()
    t = b.sum()
    s = min(max(s, 0), 1)
    t = max(-1, min(1, t))
    return max(s, t) - min(s, t) + c


out = f(det((3, 4), seed=1, scale=0.2), det((3, 4), seed=2, scale=0.2))
out_1 = f(det((3, 4), seed=3, scale=2.0), det((3, 4), seed=4, scale=2.0))
