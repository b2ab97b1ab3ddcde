# case: residual update written in place on the input (x += f(x); x.mul_(0.5); return x): the caller's tensor must be mutated and the returned value equal it; a second call on a strided view of a larger tensor (recompile on strides) must write through to the base
# category: inplace
# from: idiom: residual block with in-place residual add
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


W = det((8, 8), seed=3) / math.sqrt(8)


@torch.compile
def residual_(x):
    h = F.silu(x @ W)
    x += h
    x.mul_(0.5)
    return x


x0 = det((4, 8), seed=1)
r = residual_(x0)
out = r.clone()
out_1 = x0.clone()
out_2 = r is x0
out_3 = bool(torch.equal(r, x0))

base = det((4, 16), seed=2)
view = base[:, ::2]
residual_(view)
out_4 = base.clone()
