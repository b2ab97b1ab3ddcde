# case: a contextmanager mutates module globals on enter (counter, last scale) and in finally; the compiled body reads the updated globals; the changed global counter invalidates the guard on the next call (recompile), final globals must match eager
# category: ctx
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_change_parent_global_0
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


ENTER_COUNT = 0
LAST_SCALE = 1.0


@contextlib.contextmanager
def counting(scale):
    global ENTER_COUNT, LAST_SCALE
    ENTER_COUNT += 1
    LAST_SCALE = scale
    try:
        yield ENTER_COUNT
    finally:
        LAST_SCALE = -1.0


@torch.compile
def f(x):
    with counting(3.0) as n:
        y = x * n + LAST_SCALE
    return y + LAST_SCALE


x = det((3, 3), seed=1)
out = f(x)
out_1 = f(x)
out_2 = f(x)
out_3 = [ENTER_COUNT, LAST_SCALE]
