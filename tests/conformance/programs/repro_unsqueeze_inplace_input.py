# case: x.unsqueeze_(0) on a graph input changes the caller's tensor metadata; calling again on the now 3-d tensor recompiles (shape guard)
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_inplace_unsqueeze_input
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
    x.unsqueeze_(0)
    return x * 2 + 1


x = det((3, 4), seed=1)
r = f(x)
out = r
out_1 = list(x.shape)
out_2 = list(r.shape)
r2 = f(x)  # x is now (1, 3, 4)
out_3 = list(x.shape)
out_4 = r2
