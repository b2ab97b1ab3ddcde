# case: dynamic=True with an int index into a Python list argument: torch.zeros(idx) + lst[idx] and the slice lst[idx:]; indexing a list needs a concrete index, so each new idx specializes; results must match eager
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_builtin_getitem
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def f(lst, idx):
    return torch.zeros(idx) + lst[idx], lst[idx:]


lst = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
out = f(lst, 6)
out_1 = f(lst, 4)
out_2 = f(lst, 6)
