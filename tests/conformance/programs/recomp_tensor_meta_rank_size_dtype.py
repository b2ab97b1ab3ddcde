# case: dynamic=False; the same function gets a (3,4,5) tensor, then a rank-2 slice, then a (2,4,5) slice, then a float64 copy: rank, size and dtype guards each recompile (4 graphs); a fresh (3,4,5) float32 tensor reuses the first graph
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_verbose_tensor_check
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=False)
def f(a):
    return torch.add(a, 4) * 0.5


a = det((3, 4, 5), seed=1)
out = f(a)
out_1 = f(a[0])  # rank mismatch
out_2 = f(a[0:2])  # size mismatch at index 0
out_3 = f(a.double())  # dtype mismatch
out_4 = f(det((3, 4, 5), seed=2))  # first entry again
out_5 = str(out_3.dtype)
