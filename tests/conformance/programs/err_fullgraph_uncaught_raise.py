# case: a raise with no handler in the compiled frame: under fullgraph=True the call surfaces a compiler error class (observed exception), without fullgraph the user's RuntimeError propagates; the non-raising path works in both
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_observed_exception
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def strict_full(x, reject):
    y = x * 3
    if reject:
        raise RuntimeError("input rejected")
    return y - 1


@torch.compile
def strict_loose(x, reject):
    y = x * 3
    if reject:
        raise RuntimeError("input rejected")
    return y - 1


x = det((3, 3), seed=2)
out = strict_full(x, False)
try:
    out_1 = strict_full(x, True)
except Exception as e:
    out_1 = "error: " + type(e).__name__
try:
    out_2 = strict_loose(x, True)
except Exception as e:
    out_2 = "error: " + type(e).__name__
out_3 = strict_loose(x, False)
