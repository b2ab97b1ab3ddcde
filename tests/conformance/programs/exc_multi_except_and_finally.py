# case: try with `except (KeyError, AttributeError)`, `except NotImplementedError` and finally, under fullgraph=True; an int mode picks which exception is raised (one graph per mode); the handler taken and the finally count match eager
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception3
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, mode):
    log = []
    try:
        x = x * 2
        if mode == 0:
            raise KeyError("k")
        elif mode == 1:
            raise NotImplementedError("n")
        x = x + 100
    except (KeyError, AttributeError):
        x = x - 1
        log.append("key")
    except NotImplementedError:
        x = x.cos()
        log.append("nyi")
    finally:
        x = x * 3
        log.append("finally")
    return x, len(log)


x = det((2, 3), seed=1)
out = f(x, 0)
out_1 = f(x, 1)
out_2 = f(x, 2)
