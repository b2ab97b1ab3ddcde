# case: assigning obj.__class__ = Derived on a locally built object inside the compiled function; isinstance, hasattr and a method only Derived defines must follow the new class (Dynamo may graph break here)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_class_reassignment_graph_break
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Base:
    def __init__(self, v):
        self.v = v


class Derived(Base):
    def __init__(self, v):
        super().__init__(v)
        self.w = v * 2

    def scale(self):
        return 3


@torch.compile
def f(x):
    obj = Base(5)
    obj.__class__ = Derived
    is_derived = isinstance(obj, Derived)
    has_w = hasattr(obj, "w")
    return x + obj.v * obj.scale(), is_derived, has_w


out = f(det((2, 3), seed=1))
