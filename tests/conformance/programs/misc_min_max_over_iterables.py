# case: builtin min/max over a list, an iterator, a tuple and varargs of ints derived from x.shape; results feed tensor math and are returned; the second shape recompiles with dynamic sizes
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_min_max_over_iterable
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(a):
    vals = [a.shape[0] + 1, 8, a.shape[1]]
    lo = min(vals)
    hi = max(iter(vals))
    spread = max(*vals) - min(tuple(vals))
    return a * lo + hi - spread, (lo, hi, spread)


out = f(det((3, 5), seed=1))
out_1 = f(det((9, 2), seed=2))
