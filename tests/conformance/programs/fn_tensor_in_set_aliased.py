# case: fullgraph fn mutates p in place then tests `p in set([q])` (identity-based membership); distinct tensors give False, passing the same tensor twice gives True and recompiles for the aliasing
# category: guard
# from: test/dynamo/test_functions.py::DefaultsTests::test_in_set_would_fail_broadcast
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(p, q):
    p.add_(1)
    bag = set([q])
    return p in bag, p.sum()


p = torch.zeros(5)
q = det((5, 10), seed=1)
out = f(p, q)
out_1 = f(p, p)
out_2 = p
