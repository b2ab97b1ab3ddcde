# case: a @contextlib.contextmanager that catches RuntimeError wraps a call that raises inside the compiled fn; execution continues and the handler's side effect runs once per call
# category: exception
# from: test/dynamo/test_repros.py::ReproTests::test_exception_in_dynamo_handling
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


hits = []


@contextlib.contextmanager
def swallow_runtime_errors():
    try:
        yield
    except RuntimeError:
        hits.append(1)


def explode():
    raise RuntimeError("boom")


@torch.compile
def f(x):
    y = x * 2
    with swallow_runtime_errors():
        explode()
    return y + 1


out = f(det((3,), seed=1))
out_1 = len(hits)
out_2 = f(det((3,), seed=2))
out_3 = len(hits)
