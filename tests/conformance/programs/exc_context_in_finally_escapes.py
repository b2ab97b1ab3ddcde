# case: a finally block raises ValueError while a TypeError is in flight: the ValueError escapes the compiled function with the TypeError as __context__, after both list appends ran; a caught variant reports the same chain from inside
# category: exception
# from: test/dynamo/test_exceptions.py::CPythonExceptionTests::test_context_of_exception_in_try_and_finally
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


log = []


@torch.compile
def f(x):
    y = x * 2
    try:
        log.append("try")
        raise TypeError("first")
    finally:
        log.append("finally")
        raise ValueError("second " + str(y.shape[0]))


def g(x):
    try:
        try:
            raise KeyError("inner")
        finally:
            raise IndexError("outer")
    except Exception as e:
        return x + 1, type(e).__name__ + "<-" + type(e.__context__).__name__


ctx_name = "none"
try:
    out = f(det((3,), seed=1))
except Exception as e:
    out = "error: " + type(e).__name__
    ctx_name = type(e.__context__).__name__
out_1 = ctx_name
out_2 = list(log)
out_3 = torch.compile(g)(det((3,), seed=2))
