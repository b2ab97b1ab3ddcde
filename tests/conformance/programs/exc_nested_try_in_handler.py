# case: inside an except handler a second try raises and catches AssertionError (exception raised while another is being handled) under fullgraph=True; both handlers run once (stage counter) and the tensor result matches eager
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception_with_another_exception
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
    stages = 0
    try:
        x = torch.sin(x)
        raise NotImplementedError("outer")
    except NotImplementedError:
        x = torch.sigmoid(x)
        stages += 1
        try:
            x = x * 5
            raise AssertionError
        except AssertionError:
            x = x - 2
            stages += 10
    return x, stages


out = f(det((3, 2), seed=1))
