# case: a user __bool__ that mutates self and returns a float must raise TypeError from `if not obj` in the compiled function like in eager; the attribute written by __bool__ is checked afterwards
# category: error
# from: test/dynamo/test_misc.py::MiscTests::test_if_cond_user_defined_object2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Odd:
    def __init__(self, x):
        self.x = x

    def __bool__(self):
        self.x = 1.25
        return self.x


@torch.compile
def f(a, obj):
    if not obj:
        return a + obj.x
    return a - obj.x


o = Odd(0.5)
try:
    out = f(det((3,), seed=1), o)
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = o.x
