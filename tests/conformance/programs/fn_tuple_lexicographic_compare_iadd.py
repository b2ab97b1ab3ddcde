# case: lexicographic comparisons of constant tuples of different lengths select in-place x += c updates applied to the caller's tensor; the input is mutated and returned (same object)
# category: inplace
# from: test/dynamo/test_functions.py::FunctionTests::test_list_compare_polyfill
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    for a, b, c in [
        ((1, 2, 3), (1, 2, 3), 0.5),
        ((1, 4), (1, 2, 3), 0.25),
        ((1, 2), (1, 2, 3), 2.0),
        ((0, 9), (1,), 4.0),
    ]:
        if a != b:
            x += 1 * c
        if a == b:
            x += 2 * c
        if a < b:
            x += 4 * c
        if a > b:
            x += 8 * c
        if a <= b:
            x += 16 * c
        if a >= b:
            x += 32 * c
    return x


x = det((2, 3), seed=1)
r = f(x)
out = r.clone()
out_1 = x  # mutated in place
out_2 = r is x
