# case: a module-level tensor read inside the compiled fn is rebound to a new tensor of the same shape, then mutated in place; each call must use the current value (global tensor is a graph input)
# category: guard
# from: test/dynamo/test_functions.py::FunctionTests::test_globalvar
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


OFFSET = torch.ones(4, 4)


@torch.compile
def f(a, b):
    return a - b + OFFSET


a = det((4, 4), seed=1)
b = det((4, 4), seed=2)
out = f(a, b)
OFFSET = det((4, 4), seed=3)  # rebind the global
out_1 = f(a, b)
OFFSET.mul_(2.0)  # mutate it in place
out_2 = f(a, b)
