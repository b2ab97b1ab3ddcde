# case: a call with keyword arguments raises TypeError inside try; the handler then iterates dict.items() summing tensors; under fullgraph=True the result matches eager
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_dynamo_undo_kw_names
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def g(x, k=None, scale=1.0):
    if k:
        raise TypeError("bad k")
    return x.sin() * scale


@torch.compile(fullgraph=True)
def f(x):
    d = {"a": x, "b": x * 2}
    try:
        y = g(x, k=True, scale=3.0)
    except TypeError:
        y = 0
        for _, v in d.items():
            y = y + v.sum()
    return y


out = f(det((2, 3), seed=1))
