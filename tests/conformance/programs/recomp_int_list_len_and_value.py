# case: dynamic=False, argument is a plain list of ints (no tensor inputs) used as torch.ones(len(x), x[-1]); a shorter list fails the length guard and recompiles each time; a list matching the first call's length and last element reuses the first graph
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_multiple_guard_fails_report_all
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=False)
def f(sizes):
    return torch.ones(len(sizes), sizes[-1]) * 2


out = f([4, 5, 6])  # (3, 6)
out_1 = f([7, 8])  # len 2: recompile
out_2 = f([9])  # len 1: recompile
out_3 = f([1, 2, 6])  # len 3 and last 6 again: the first entry may serve it
out_4 = [tuple(out.shape), tuple(out_1.shape), tuple(out_2.shape), tuple(out_3.shape)]
