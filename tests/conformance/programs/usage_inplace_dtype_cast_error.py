# case: in-place add_ on an int64 input inside a compiled fn: an int delta works (input mutated), a float delta cannot be cast back to Long and raises (caught); the input stays as after the first call
# category: error
# from: idiom: in-place ops on integer tensors with a Python scalar argument
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def bump(counts, delta):
    counts.add_(delta)
    return counts.sum()


counts = torch.arange(6, dtype=torch.int64)
out = bump(counts, 2)
out_1 = counts.clone()
try:
    out_2 = bump(counts, 0.5)
except Exception as e:
    out_2 = "error: " + type(e).__name__
out_3 = counts.clone()
out_4 = str(out_1.dtype)
