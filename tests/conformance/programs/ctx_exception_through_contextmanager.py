# case: an exception raised inside a @contextlib.contextmanager with-block propagates through the generator's finally and is caught by try/except in the compiled function; log order and result must match eager; the int argument change recompiles
# category: exception
# from: test/dynamo/test_ctx_manager.py::CPythonContextManagerTestCase::test_contextmanager_finally
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


log = []


@contextlib.contextmanager
def tracked():
    log.append("enter")
    try:
        yield len(log)
    finally:
        log.append("exit")


@torch.compile
def f(x, limit):
    y = x * 2
    try:
        with tracked() as n:
            y = y + n
            if limit < 3:
                raise KeyError("too small")
            y = y * limit
    except KeyError:
        log.append("handled")
        y = y - 100
    return y


x = det((3, 3), seed=1)
out = f(x, 5)
out_1 = f(x, 1)
out_2 = list(log)
