# case: iterating a user object whose __iter__ returns iter(self.items) is inlined with a guard on the list length; appending an item recompiles and the new element is included
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_user_defined_iter
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Bag:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


@torch.compile(fullgraph=True)
def f(bag):
    acc = []
    for t in bag:
        acc.append(t * 2 + 1)
    return acc


bag = Bag([det((2, 3), seed=1), det((2, 3), seed=2)])
out = f(bag)
out_1 = f(bag)
bag.items.append(det((2, 3), seed=3))
out_2 = f(bag)
out_3 = len(out_2)
