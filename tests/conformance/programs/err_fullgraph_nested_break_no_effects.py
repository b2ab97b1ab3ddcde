# case: graph_break in a helper called from a fullgraph=True function raises at compile time, so none of the function's list side effects happen (len stays 0 under compile); the non-fullgraph twin runs them once each, in order
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_no_internal_compiler_stacktrace
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


log = []


def helper(t):
    log.append("helper")
    torch._dynamo.graph_break()
    return t * 2


def outer_full(x):
    log.append("outer")
    return helper(x + 1) - 1


def outer_loose(x):
    log.append("outer")
    return helper(x + 1) - 1


x = det((5,), seed=1)
try:
    out = torch.compile(outer_full, fullgraph=True)(x)
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = len(log)
out_2 = torch.compile(outer_loose)(x)
out_3 = list(log)
