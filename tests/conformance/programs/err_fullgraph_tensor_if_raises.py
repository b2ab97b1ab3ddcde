# case: fullgraph=True on a function whose `if` tests a tensor (x.sum() > 0) raises at compile time (data-dependent branching); the torch.where rewrite compiles as one graph and serves both signs without recompiling
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_data_dependent_branching_fullgraph
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def branchy(x):
    if x.sum() > 0:
        return x.sin() * 2
    return x.cos() - 1


def branchless(x):
    return torch.where(x.sum() > 0, x.sin() * 2, x.cos() - 1)


x = det((4, 5), seed=3)
try:
    out = torch.compile(branchy, fullgraph=True)(x)
except Exception as e:
    out = "error: " + type(e).__name__

g = torch.compile(branchless, fullgraph=True)
out_1 = g(x)
out_2 = g(-x)  # other sign of the sum, same shapes: same graph
