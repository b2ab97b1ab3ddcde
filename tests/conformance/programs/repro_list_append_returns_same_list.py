# case: compiled fn appends to its list argument and returns it: the caller's list is mutated, the same object comes back; a longer list recompiles (list length guard)
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_list_aliasing
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(items):
    items.append(torch.sin(items[0]) * 2)
    return items


x = det((4, 5), seed=1)
lst = [x]
res = f(lst)
out = res is lst
out_1 = len(lst)
out_2 = lst[0] is x
out_3 = lst[1]

lst2 = [det((4, 5), seed=2), det((4, 5), seed=3)]
res2 = f(lst2)  # two-element list: new guard on the length, recompiles
out_4 = [len(lst2), res2 is lst2]
out_5 = lst2[2]
