# case: a local deleted with `del` and then read: eager raises UnboundLocalError; fullgraph compile and default compile must raise too (error classes caught)
# category: error
# from: test/dynamo/test_repros.py::ReproTests::test_delete_local_error
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    y = x + 1
    del y
    return y + 1  # noqa: F821


@torch.compile
def g(x):
    y = x * 2
    del y
    return y - 1  # noqa: F821


x = det((3,), seed=1)
try:
    out = f(x)
except Exception as e:
    out = "error: " + type(e).__name__
try:
    out_1 = g(x)
except Exception as e:
    out_1 = "error: " + type(e).__name__
