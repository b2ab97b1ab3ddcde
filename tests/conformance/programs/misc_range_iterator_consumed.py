# case: a range iterator passed in is advanced twice with next() inside a fullgraph function; the caller's iterator must be advanced too (next() outside yields the third element, then it is exhausted)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_range_iter_side_effects
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile(fullgraph=True)
def f(x, it):
    n = next(it)
    m = next(it)
    return x * n + m


it = iter(range(2, 9, 3))
out = f(det((3,), seed=1), it)
out_1 = next(it)
out_2 = len(list(it))
