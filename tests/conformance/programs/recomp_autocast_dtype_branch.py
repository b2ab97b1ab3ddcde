# case: compiled code branches on torch.get_autocast_dtype("cpu") before an mm; calls under autocast float16, then bfloat16, then float16 again: the autocast dtype is guarded, so 2 graphs and each call takes the branch of its own context
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_autocast_constant_fold
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

W = det((8, 8), seed=1, scale=0.5)


def fn(x):
    if torch.get_autocast_dtype("cpu") == torch.float16:
        x = x + 1
    else:
        x = x - 1
    return torch.mm(x, W)


opt = torch.compile(fn, fullgraph=True)
x = det((2, 8), seed=2)

with torch.autocast("cpu", dtype=torch.float16):
    r0 = opt(x)
with torch.autocast("cpu", dtype=torch.bfloat16):
    r1 = opt(x)
with torch.autocast("cpu", dtype=torch.float16):
    r2 = opt(x)

out = (str(r0.dtype), str(r1.dtype), str(r2.dtype))
out_1 = r0.float()
out_2 = r1.float()
out_3 = r2.float()
