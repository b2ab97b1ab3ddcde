# case: mark_dynamic(x, 0) with a branch on x.shape[0] > 3 is fine (an inequality does not pin the dim): sizes 5 and 8 share one graph, size 2 fails the inequality guard and recompiles into the other branch
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_no_raise_guard_partial_constraint
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    if x.shape[0] > 3:
        return x.sin() * 2
    return x.cos()


cf = torch.compile(f)

a = det((5, 3), seed=1)
torch._dynamo.mark_dynamic(a, 0)
out = cf(a)

b = det((8, 3), seed=2)
torch._dynamo.mark_dynamic(b, 0)
out_1 = cf(b)  # same graph

c = det((2, 3), seed=3)
torch._dynamo.mark_dynamic(c, 0)
out_2 = cf(c)  # guard s0 > 3 fails: recompile
