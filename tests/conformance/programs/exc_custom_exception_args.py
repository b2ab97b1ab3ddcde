# case: a user-defined Exception raised with positional args (an int argument and a float) and caught by its class before `except Exception`; e.args feed tensor math and len(e.args) is returned (fullgraph=True, recompiles on the int)
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_raise_custom_exception_with_args
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class ScaleError(Exception):
    pass


@torch.compile(fullgraph=True)
def f(t, k):
    try:
        raise ScaleError(k, 2.5)
    except ScaleError as e:
        return t.sin() * e.args[0] + e.args[1], len(e.args)
    except Exception:
        return t.cos(), 0


t = det((3,), seed=1)
out = f(t, 3)
out_1 = f(t, 4)
