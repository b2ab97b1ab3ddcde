# case: a counter closure doing nonlocal x = x + 1 is called twice inside a fullgraph function (inlined); the cell update must be written back, so a later eager call and a second compiled call continue from it
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_write_to_closures_in_inlining
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_counter(start):
    x = start

    def counter():
        nonlocal x
        x = x + 1
        return x

    return counter


@torch.compile(fullgraph=True)
def f(counter):
    return counter() + counter() * 2


c = make_counter(det((3,), seed=1))
out = f(c)
out_1 = c()
out_2 = f(c)
