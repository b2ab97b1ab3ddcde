# case: builtin abs() on tensors, a negative Python int with an int64 tensor, and a negative float with a float tensor, under fullgraph; each argument-type combination compiles its own graph
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_builtin_abs
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, y):
    return abs(x) + abs(y)


out = f(det((3, 4), seed=1), det((3, 4), seed=2))
out_1 = f(-7, torch.arange(-5, 5, dtype=torch.int64))
out_2 = f(-0.25, det((6,), seed=3))
out_3 = str(out_1.dtype)
