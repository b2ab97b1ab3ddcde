# case: set.update(map(int, items)) and set.discard on a set argument inside a fullgraph function; the caller's set must be mutated, the list argument left untouched, and len() of the set used in tensor math
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_set_update
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, s, items):
    s.update(map(int, items))
    s.discard(0)
    return x + len(s)


s = {5}
items = [1, 2, 1, 0, 3.7]
out = f(det((3,), seed=1), s, items)
out_1 = sorted(s)
out_2 = items
