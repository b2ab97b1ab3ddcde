# case: a compiled *args/**kwargs wrapper forwarding to a keyword-only core: each new set of keyword names recompiles (guards on the kwargs keys), repeating a call signature hits the cache
# category: recompile
# from: idiom: *args/**kwargs forwarding through a compiled wrapper
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def core(x, y, *, alpha=1.0, beta=0.0):
    return x * alpha + y * beta


@torch.compile
def wrapper(*args, **kwargs):
    return core(*args, **kwargs).relu()


x = det((3, 4), seed=1)
y = det((3, 4), seed=2)
out = wrapper(x, y)
out_1 = wrapper(x, y, alpha=2.0)
out_2 = wrapper(x, y, beta=0.5, alpha=2.0)
out_3 = wrapper(x, y, alpha=2.0)
