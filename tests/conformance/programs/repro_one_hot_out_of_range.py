# case: F.one_hot in a fullgraph fn must raise on an index >= num_classes and on a negative index (no silent wrong result); a valid call then works
# category: error
# from: test/dynamo/test_repros.py::ReproTests::test_one_hot_bounds_check_compiled
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(idx, n):
    return F.one_hot(idx, n).to(torch.float32) * 2


a = torch.arange(0, 5) % 3  # [0, 1, 2, 0, 1]
try:
    out = f(a, 2)
except Exception as e:
    out = "error: " + type(e).__name__
try:
    out_1 = f(torch.tensor([-1, 0, 1]), 3)
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = f(a, 3)
