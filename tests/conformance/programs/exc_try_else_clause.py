# case: try/except/else where the callee raises ValueError only when a bool flag is set; under fullgraph=True the else branch runs for False and the handler for True (one graph per flag value)
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception_else
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def maybe_fail(t, fail):
    if fail:
        raise ValueError("requested")
    return t.cos()


@torch.compile(fullgraph=True)
def f(x, fail):
    x = x + 1
    try:
        x = maybe_fail(x, fail)
    except ValueError:
        x = x * -1
    else:
        x = x * 10
    return x - 0.5


x = det((5,), seed=3)
out = f(x, False)
out_1 = f(x, True)
