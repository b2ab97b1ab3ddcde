# case: a @contextlib.contextmanager generator that logs enter/exit to a list and yields a tensor computed from the input; the with-body returns early; fullgraph, the log side effects are replayed once per call
# category: ctx
# from: test/dynamo/test_ctx_manager.py::ContextlibContextManagerTests::test_ctx_basic1
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


events = []


@contextlib.contextmanager
def scaled(x, factor):
    events.append("enter")
    try:
        yield x.sin() * factor
    finally:
        events.append("exit")


@torch.compile(fullgraph=True)
def f(x):
    with scaled(x, 2.0) as s:
        return s.cos() + x


out = f(det((5,), seed=1))
out_1 = f(det((5,), seed=2))
out_2 = list(events)
