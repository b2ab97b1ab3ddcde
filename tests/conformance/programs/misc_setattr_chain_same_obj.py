# case: a chain of attribute writes on an argument object where each write reads the previous ones; the compiled function must return the same object and leave the final attribute values on it
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_setattr_mutation1
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class State:
    def __init__(self, a, b):
        self.a = a
        self.b = b


@torch.compile
def f(s):
    s.c = s.a * s.b + 1
    s.b = s.a * s.c + 2
    s.a = s.b * s.c + 3
    return s


s = State(det((4,), seed=1), det((4,), seed=2))
r = f(s)
out = r is s
out_1 = s.a
out_2 = s.b
out_3 = s.c
