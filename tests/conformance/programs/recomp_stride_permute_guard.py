# case: a + b*c; a contiguous view with identical sizes/strides reuses the graph, a permuted (non-contiguous) b with the same shape fails the stride guard and recompiles (2 graphs); values must match eager
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_nvfuser_guards
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b, c):
    return a + b * c


a = det((3, 4, 5), seed=1)
b = det((3, 4, 5), seed=2)
c = det((3, 4, 5), seed=3)
b_view = det((3, 5, 4), seed=4).view(3, 4, 5)  # contiguous: same strides as b
b_perm = det((3, 5, 4), seed=5).permute(0, 2, 1)  # strides (20, 1, 4)

out = f(a, b, c)
out_1 = f(a, b, c)  # no guard failure
out_2 = f(a, b_view, c)  # same metadata: no recompile
out_3 = f(a, b_perm, c)  # stride mismatch: recompile
out_4 = b_perm.stride()
