# case: torch.compile(fn, options={"epilogue_fusion": False, "shape_padding": False}) (Inductor config passed as a dict): linear + gelu + residual compiles and matches eager
# category: model
# from: idiom: torch.compile(options={...})
import math

import torch
import torch.nn.functional as F

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def block(x, w, b):
    return F.gelu(F.linear(x, w, b)) + x


cblock = torch.compile(block, options={"epilogue_fusion": False, "shape_padding": False})
w = det((6, 6), seed=5, scale=0.4)
b = det((6,), seed=6, scale=0.1)
out = cblock(det((3, 6), seed=1), w, b)
out_1 = cblock(det((3, 6), seed=2), w, b)
