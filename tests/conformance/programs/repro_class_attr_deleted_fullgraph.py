# case: fullgraph fn reads a class attribute through an instance; after `del Cls.a` the guard fails and the retrace cannot find the attribute (error caught); re-adding it works
# category: error
# from: test/dynamo/test_repros.py::ReproTests::test_issue111522
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Holder:
    a = 2


@torch.compile(fullgraph=True)
def f(x, obj):
    return x + obj.a


x = det((3,), seed=1)
out = f(x, Holder())
del Holder.a
try:
    out_1 = f(x, Holder())
except Exception as e:
    out_1 = "error: " + type(e).__name__
Holder.a = 5
out_2 = f(x, Holder())
