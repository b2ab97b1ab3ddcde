# case: callable object passed in; a second instance of the same class reuses the graph, replacing the class's __call__ afterwards fails the guard and recompiles with the new behaviour for both instances
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_dunder_call_recompile
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Bump:
    def __call__(self, x):
        return x + 1


@torch.compile
def f(x, fn):
    return fn(x) * 3


x = det((4,), seed=1)
b1 = Bump()
b2 = Bump()

out = f(x, b1)  # graph 1
out_1 = f(x, b2)  # same class: no recompile

Bump.__call__ = lambda self, x: x + 2

out_2 = f(x, b1)  # class attribute changed: recompile, new result
out_3 = f(x, b2)  # new entry reused
