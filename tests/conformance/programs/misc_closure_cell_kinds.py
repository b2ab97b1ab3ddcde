# case: a fullgraph function calls a closure passed as argument; closures with the same int cell share a graph, a tensor cell recompiles (then is reused for another tensor), a different int cell recompiles again
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_closure_recompiles
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_adder(v):
    def add(t):
        return t + v

    return add


@torch.compile(fullgraph=True)
def f(x, fn):
    return fn(x * 2) - 1


x = det((8,), seed=1)
out = f(x, make_adder(5))
out_1 = f(x, make_adder(5))
out_2 = f(x, make_adder(det((8,), seed=3)))
out_3 = f(x, make_adder(det((8,), seed=4)))
out_4 = f(x, make_adder(6))
