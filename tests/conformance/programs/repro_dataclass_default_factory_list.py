# case: dataclass with a default_factory list field built from a list argument; appending to the field mutates the caller's list; a shorter list recompiles (fullgraph)
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_dataclass_init_with_default_factory_with_inputs
import dataclasses
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@dataclasses.dataclass
class Ctx:
    items: list = dataclasses.field(default_factory=list)
    bias: int = 1


@torch.compile(fullgraph=True)
def f(x, lst):
    c = Ctx(lst)
    c.items.append(x.sin() + c.bias)
    return c


x = det((4,), seed=1)
l1 = [1, 2, 3]
r1 = f(x, l1)
out = len(l1)
out_1 = l1[-1]
out_2 = [r1.items is l1, r1.bias, type(r1).__name__]
l2 = [7, 8]
r2 = f(x * 2, l2)
out_3 = len(l2)
out_4 = l2[-1]
