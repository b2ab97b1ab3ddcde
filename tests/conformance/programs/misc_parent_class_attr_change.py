# case: a compiled bound method uses super().cube (classmethod), A.add(self, ...), B.mul with its own super(), super(B, self).add and super().a; changing the class attribute A.a afterwards must recompile, a third call hits the cache
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_call_parent_non_class_methods_from_child
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class A:
    a = 4

    def add(self, x):
        return x + 10

    def mul(self, x):
        return x * 0.1


class B(A):
    coeff = 3

    def add(self, x):
        return x + 20

    @classmethod
    def cube(cls, x):
        return cls.coeff * x * x * x

    def mul(self, x):
        return super().mul(x) * x * 0.2


class C(B):
    def add(self, x):
        b = super().cube(x)
        c = A.add(self, x)
        d = B.mul(self, x)
        e = super(B, self).add(x)
        f = super().a * x
        return b + c + d + e + f


obj = C()
fn = torch.compile(obj.add, fullgraph=True)
x = det((4,), seed=1)
out = fn(x)
A.a = 5
out_1 = fn(x)
out_2 = fn(x)
