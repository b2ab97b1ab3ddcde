# case: del obj.a on an argument object, set-then-delete obj.c, del on a new local object; hasattr sees the deletion inside the fn and the caller's object keeps it (fullgraph)
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_delattr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Obj:
    def __init__(self, a, b):
        self.a = a
        self.b = b


@torch.compile(fullgraph=True)
def f(x, obj):
    del obj.a
    obj.c = x + 1
    del obj.c
    tmp = Obj(x + 2, x + 3)
    del tmp.b
    if hasattr(obj, "a"):
        return x - 1, tmp.a
    return x + obj.b, tmp.a


x = det((3,), seed=1)
o = Obj(x * 5, x * 7)
r = f(x, o)
out = r[0]
out_1 = r[1]
out_2 = [hasattr(o, "a"), hasattr(o, "b"), hasattr(o, "c")]
