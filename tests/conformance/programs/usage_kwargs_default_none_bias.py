# case: compiled fn with defaults bias=None, scale=1: passing a bias tensor recompiles (None -> tensor), the same bias passed positionally hits the cache, a new int scale recompiles
# category: recompile
# from: idiom: optional keyword arguments with None defaults on a compiled function
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def affine(x, weight, bias=None, scale=1):
    y = x @ weight.t()
    if bias is not None:
        y = y + bias
    return y * scale


x = det((2, 5), seed=1)
w = det((3, 5), seed=2, scale=0.5)
b = det((3,), seed=3)
out = affine(x, w)
out_1 = affine(x, w, bias=b)
out_2 = affine(x, w, b)
out_3 = affine(x, w, bias=None, scale=3)
