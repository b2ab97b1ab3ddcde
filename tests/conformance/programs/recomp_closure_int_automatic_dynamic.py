# case: compiled function calls a closure passed as argument whose cell holds a different int on each call; the first int is specialized, the second recompiles with the closed-over int dynamic, the rest reuse it (2 graphs for 6 calls)
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_automatic_dynamic_on_closed_ints
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_adder(k):
    def add(y):
        return y + k

    return add


@torch.compile
def h(x, fn):
    return fn(x) * 2


x = det((5,), seed=1)
results = [h(x, make_adder(i)) for i in range(6)]

out = torch.stack(results)
out_1 = h(x, make_adder(40))
