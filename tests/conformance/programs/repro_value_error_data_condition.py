# case: `if not x.sum() <= 3: raise ValueError` is a data-dependent branch (graph break); a small input returns, a large one must raise ValueError out of the compiled fn
# category: exception
# from: test/dynamo/test_repros.py::ReproTests::test_not_rewrite_assert_for_other_errors
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
    b = x.sin()
    if not x.sum() <= 3:
        raise ValueError("input sum must be at most 3")
    return x.cos() + b


out = f(det((3,), seed=1, scale=0.5))
try:
    out_1 = f(torch.tensor([3.0, 4.0, 5.0]))
except ValueError as e:
    out_1 = "error: " + type(e).__name__
