# case: contextlib.suppress(ValueError) (not supported by Dynamo -> graph break) around a body that may raise ValueError depending on a Python bool argument; the suppressed raise must skip the rest of the block; the bool change recompiles
# category: graph_break
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_contextlib_suppress
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(t, fail):
    y = t.sin()
    with contextlib.suppress(ValueError):
        y = y + t.cos()
        if fail:
            raise ValueError("skip the rest")
        y = y * 10
    return y.tanh()


t = det((5,), seed=1)
out = f(t, False)
out_1 = f(t, True)
out_2 = f(t * 2, False)
