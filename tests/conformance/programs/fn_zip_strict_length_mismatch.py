# case: zip(..., strict=True) over Python float lists; equal lengths work, a length mismatch raises (ValueError when graph breaks are allowed; the fullgraph variant raises Dynamo's user error)
# category: exception
# from: test/dynamo/test_functions.py::DefaultsTests::test_zip_strict
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def accumulate(x, ys, zs):
    x = x.clone()
    for y, z in zip(ys, zs, strict=True):
        x += y * z
    return x


opt = torch.compile(accumulate)
x = torch.ones(3)
out = opt(x, [1.0, 2.0, 3.0], [2.0, 5.0, 8.0])
try:
    out_1 = opt(x, [1.0], [2.0, 5.0, 8.0])
except Exception as e:
    out_1 = "error: " + type(e).__name__

torch._dynamo.reset()
strict_opt = torch.compile(accumulate, fullgraph=True)
try:
    out_2 = strict_opt(x, [1.0], [2.0, 5.0, 8.0])
except Exception as e:
    out_2 = "error: " + type(e).__name__
