# case: mark_dynamic(x, 0) but the code branches on x.shape[0] == 3, which forces that dim to a constant; compiling raises a constraint violation error (caught), while an unmarked tensor of the same shape compiles fine
# category: error
# from: test/dynamo/test_misc.py::MiscTests::test_raise_guard_full_constraint
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    if x.shape[0] == 3:
        return x.sin()
    return x.cos()


y = det((3, 3, 3), seed=1)
torch._dynamo.mark_dynamic(y, 0)
try:
    out = torch.compile(f)(y)
except Exception as e:
    out = "error: " + type(e).__name__

z = det((3, 3, 3), seed=2)  # not marked
out_1 = torch.compile(f)(z)
