# case: exceptions outside the Exception hierarchy (GeneratorExit, a user BaseException subclass) skip `except Exception` and land in the later handlers; an ordinary LookupError takes the first; fullgraph=True, one graph per selector
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_raise_GeneratorExit
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Halt(BaseException):
    pass


@torch.compile(fullgraph=True)
def f(t, which):
    try:
        if which == 0:
            raise GeneratorExit
        if which == 1:
            raise Halt("stop")
        raise LookupError("plain")
    except Exception:
        return t.sin()
    except GeneratorExit:
        return t.cos()
    except BaseException:
        return t.tanh()


t = det((4,), seed=1)
out = f(t, 0)
out_1 = f(t, 1)
out_2 = f(t, 2)
