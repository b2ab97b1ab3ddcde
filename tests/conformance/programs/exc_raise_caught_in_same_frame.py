# case: raise NotImplementedError inside try and catch it with `except Exception` in the same compiled frame under fullgraph=True (no graph break); the handler's sigmoid replaces the rest of the try body
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception
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
    x = torch.cos(x)
    try:
        x = torch.sin(x) * 2
        raise NotImplementedError("not here")
    except Exception:
        x = torch.sigmoid(x)
    return x + 1


out = f(det((4,), seed=1))
out_1 = f(det((4,), seed=2))
