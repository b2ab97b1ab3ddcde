# case: `with ctx:` where ctx is an int: fullgraph=True raises a compiler error class, a plain compile falls back and the eager TypeError propagates; a real context manager (contextlib.nullcontext) works
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_unsupported_context
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def scoped_full(x, ctx):
    y = x + 1
    with ctx:
        y = y * 2
    return y - 3


def scoped_loose(x, ctx):
    y = x + 1
    with ctx:
        y = y * 2
    return y - 3


full = torch.compile(scoped_full, fullgraph=True)
loose = torch.compile(scoped_loose)
x = det((2, 5), seed=4)
try:
    out = full(x, 7)
except Exception as e:
    out = "error: " + type(e).__name__
try:
    out_1 = loose(x, 7)
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = loose(x, contextlib.nullcontext())
