# case: `if not obj` on user objects: a class without __bool__ (always truthy) and a class whose __bool__ reads self.v > 0; positive and negative v take different branches (guarded), repeats hit the cache
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_if_cond_user_defined_object
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Plain:
    def __init__(self, v):
        self.v = v


class Truthy:
    def __init__(self, v):
        self.v = v

    def __bool__(self):
        return self.v > 0


@torch.compile(fullgraph=True)
def f(x, obj):
    if not obj:
        return x + 1
    return x - 1


x = det((4,), seed=1)
out = f(x, Plain(0.5))
out_1 = f(x, Truthy(0.5))
out_2 = f(x, Truthy(-0.5))
out_3 = f(x, Plain(-2.0))
out_4 = f(x, Truthy(-0.5))
out_5 = f(x, Truthy(0.5))
