# case: an inlined classmethod (class with a metaclass) calls torch._dynamo.graph_break() and then super().add / super().coeff; the break splits the caller and the results must match eager
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_super_calling_with_metaclass
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Meta(type):
    pass


class Parent(metaclass=Meta):
    coeff = 4

    @classmethod
    def add(cls, x):
        return x + 1


class Child(Parent):
    @classmethod
    def add(cls, x):
        torch._dynamo.graph_break()
        return x + super().add(x) + super().coeff


@torch.compile
def f(x, obj):
    return x * 2 + obj.add(x)


out = f(det((3,), seed=1), Child())
out_1 = f(det((3,), seed=2), Child())
