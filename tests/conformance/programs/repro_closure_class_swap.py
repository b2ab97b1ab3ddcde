# case: the class instantiated inside the compiled fn comes from a closure cell; rebinding the cell to another class must recompile (closure guard), not reuse the old class
# category: recompile
# from: test/dynamo/test_repros.py::ReproTests::test_udf_classes_reconstruction
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class AddOne:
    def __init__(self, v):
        self.x = v + 1


class AddTwo:
    def __init__(self, v):
        self.x = v + 2


def make():
    cls = AddOne

    def fn(t):
        o = cls(5)
        return o.x + t

    def swap(c):
        nonlocal cls
        cls = c

    return fn, swap


fn, swap = make()
cf = torch.compile(fn)
x = det((4,), seed=1)
out = cf(x)
swap(AddTwo)
out_1 = cf(x)
