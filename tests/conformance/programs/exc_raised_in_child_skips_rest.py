# case: a helper appends to a list and then raises IndexError (shape check) inside the caller's try under fullgraph=True: the append survives, the rest of the try body is skipped, the handler runs; the non-raising call runs it all
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception_raised_from_child
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


side = []


def child(t, limit):
    side.append("child")
    if t.shape[0] > limit:
        raise IndexError("too many rows")
    side.append("child-ok")
    return t * 2


@torch.compile(fullgraph=True)
def f(x, limit):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        x = child(x, limit)
        x = x + 1000
    except IndexError:
        x = torch.sigmoid(x)
    return x


x = det((4, 2), seed=1)
out = f(x, 2)
out_1 = f(x, 8)
out_2 = list(side)
