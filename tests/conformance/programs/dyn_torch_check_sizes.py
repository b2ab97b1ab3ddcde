# case: dynamic=True with torch._check(x.size(0) != 3) and != 4: sizes 12, 13, 14 share one graph; a size-3 input violates the check and raises (caught) as in eager
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_symbol_guard_limit_before_specialize
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def f(x):
    torch._check(x.size(0) != 3)
    torch._check(x.size(0) != 4)
    return x + 2, x.size(0) * 2


out = f(det((12,), seed=1))
out_1 = f(det((13,), seed=2))
out_2 = f(det((14,), seed=3))
try:
    out_3 = f(det((3,), seed=4))
except Exception as e:
    out_3 = "error: " + type(e).__name__
