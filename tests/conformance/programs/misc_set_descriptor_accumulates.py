# case: assigning to an attribute backed by a class-level descriptor with only __set__ runs the user __set__ (which accumulates into __dict__); reads fall through to the instance dict; state persists across calls
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_set_descriptor
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



class Doubler:
    def __set__(self, obj, value):
        obj.__dict__["field"] = obj.__dict__["field"] + value * 2


class Holder:
    field = Doubler()

    def __init__(self):
        self.__dict__["field"] = 0


@torch.compile(fullgraph=True)
def f(x, h):
    h.field = 10
    h.field = 1
    return x + h.field


x = det((4,), seed=1)
h = Holder()
out = f(x, h)
out_1 = h.field
out_2 = f(x, h)
out_3 = h.field
