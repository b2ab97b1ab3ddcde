# case: compiled functions that only do Python arithmetic (sum with start, functools.reduce) or return an input unchanged produce no graph at all; values and identity must match eager
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_sum_shortcut_with_start_arg
import functools
import math
import operator

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def totals():
    return (
        sum([0, 1.0, 2, 3.0], -10),
        sum(range(5), start=2),
        functools.reduce(operator.mul, [1, 2, 3, 4], 1),
    )


@torch.compile
def only(x):
    return functools.reduce(lambda acc, item: (acc, item), [x])


x = det((3,), seed=1)
out = totals()
out_1 = only(x)
out_2 = out_1 is x
