# case: a user-defined iterator class (__iter__/__next__ raising StopIteration) drives a for loop in a fullgraph fn; the iterator's final state is returned too
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_user_defined_iter
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


@torch.compile(fullgraph=True)
def f(x):
    it = Countdown(3)
    for v in it:
        x = x * 2 + v
    return x, it.n


out = f(det((4,), seed=1))
out_1 = f(det((4,), seed=2))
