# case: the exception class to raise is an argument; with None the function returns, with ValueError / KeyError the compiled function raises that exact class (recompiles on the class argument) and the message survives
# category: exception
# from: test/dynamo/test_misc.py::MiscTests::test_raises
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, cls):
    x = a + b * 2
    if cls is not None:
        raise cls("rejected input")
    return x


a = det((3, 4), seed=1)
b = det((3, 4), seed=2)
out = f(a, b, None)
try:
    out_1 = f(a, b, ValueError)
except Exception as e:
    out_1 = "error: " + type(e).__name__
try:
    out_2 = f(a, b, KeyError)
    out_3 = "no exception"
except Exception as e:
    out_2 = "error: " + type(e).__name__
    out_3 = str(e.args[0]) if e.args else ""
