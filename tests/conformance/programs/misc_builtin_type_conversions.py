# case: .to(bool) / .to(float) / .to(int) with Python builtin types (bool mask, float64, int64 with truncation toward zero), then int true division, floor division, % (Python sign) and fmod (C sign) on negatives
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_with_builtin_type
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    mask = (x * 2).round().to(bool)
    as_f64 = mask.to(float)
    ints = (x * 7).to(int) + as_f64.to(int)
    return mask, as_f64, ints, ints / 3, -ints // 3, -ints % 5, torch.fmod(-ints, 5)


out = f(det((4, 6), seed=1))
out_1 = [str(t.dtype) for t in out]
