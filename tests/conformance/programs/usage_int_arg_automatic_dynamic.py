# case: a Python int argument k used in arithmetic (x * k + k // 2 - k % 3): k=1 compiles static, k=2 recompiles with k dynamic, k=5 and k=-3 reuse it (floor division/modulo follow Python semantics for negatives)
# category: recompile
# from: idiom: recompiling when a Python int argument changes
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def shift(x, k):
    return x * k + k // 2 - k % 3


x = det((4,), seed=1)
out = shift(x, 1)
out_1 = shift(x, 2)
out_2 = shift(x, 5)
out_3 = shift(x, -3)
