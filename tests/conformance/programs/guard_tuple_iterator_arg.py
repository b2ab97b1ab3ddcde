# case: a partly consumed iterator over a tuple is passed in and the compiled code calls next() twice; the second call sees the iterator at a later position (different values, guard on the iterator), and after both calls the caller's iterator must have advanced exactly four items
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_tuple_iterator_getitem
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, it):
    a = next(it)
    b = next(it)
    return x * a + b


it = iter((1, 2, 3, 4, 5, 6))
first = next(it)
x = det((3,), seed=1)
out = f(x, it)  # uses 2 and 3
out_1 = f(x, it)  # uses 4 and 5
out_2 = (first, next(it))  # the iterator must now yield 6
