# case: hasattr() on an object whose __getattr__ raises AttributeError (False) chooses the branch under fullgraph=True; adding then deleting the attribute between calls flips the branch (guard on the instance dict)
# category: guard
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_attribute_error_from_getattr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Opts:
    def __init__(self):
        self.a = 5

    def __getattr__(self, name):
        raise AttributeError(name)


opts = Opts()


@torch.compile(fullgraph=True)
def f(x):
    if hasattr(opts, "boost"):
        return torch.cos(x) * opts.boost
    return torch.sin(x) * opts.a


x = det((3, 2), seed=1)
out = f(x)
opts.boost = 3
out_1 = f(x)
del opts.boost
out_2 = f(x)
