# case: a callee catches its own exception, logs, and re-raises it with a bare `raise`; the compiled caller catches it (without fullgraph); the log order and the returned tensor (taken before the callee) match eager
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception_with_another_exception2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


events = []


def risky(t):
    try:
        t = t * 2
        raise NotImplementedError("inner")
    except NotImplementedError:
        events.append("inner-handler")
        t = torch.sigmoid(t)
        raise


@torch.compile
def f(x):
    try:
        x = torch.cos(x)
        risky(x)
        events.append("unreachable")
    except Exception as e:
        events.append("outer:" + type(e).__name__)
    return x + 1


out = f(det((4,), seed=1))
out_1 = list(events)
