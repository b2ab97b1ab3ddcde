# case: cooperative super().__init__() through a mixin placed before the base in the MRO, object built inside a fullgraph fn; the attribute set by the base is then rescaled by the mixin
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_super_diamond
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Base:
    def __init__(self):
        super().__init__()
        self.a = 5


class Mixin:
    def __init__(self):
        super().__init__()
        self.a = self.a * 3


class Child(Mixin, Base):
    def __init__(self):
        super().__init__()
        self.b = 10

    def run(self, x):
        return self.a * self.b * x


@torch.compile(fullgraph=True)
def f(x):
    c = Child()
    return c.run(x), c.a


out = f(det((4,), seed=1))
out_1 = [k.__name__ for k in Child.__mro__]
