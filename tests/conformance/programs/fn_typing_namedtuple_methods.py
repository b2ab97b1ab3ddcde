# case: typing.NamedTuple subclass with an instance method, staticmethod and classmethod used inside the compiled fn; _fields and namedtuple detection via hasattr; one graph
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_namedtuple_user_methods
import math
from typing import NamedTuple

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Pair(NamedTuple):
    first: torch.Tensor
    second: torch.Tensor

    def combine(self):
        return self.first * 2 + self.second

    @staticmethod
    def arity():
        return 2

    @classmethod
    def label(cls):
        return cls.__name__


@torch.compile
def f(a, b):
    p = Pair(a, b)
    looks_named = isinstance(p, tuple) and hasattr(p, "_asdict") and hasattr(p, "_fields")
    return p.combine() + p[1], p.arity(), p.label(), p._fields, looks_named


out = f(det((2, 2), seed=1), det((2, 2), seed=2))
