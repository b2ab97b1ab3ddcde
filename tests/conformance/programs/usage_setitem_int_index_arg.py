# case: x[i] = v and x[i // 2, i % 3] = -1 with a Python int argument i (3, 4, then -1: Python floor-division / modulo semantics on a negative index); int change recompiles
# category: inplace
# from: idiom: x[i] = v with an int argument
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def write_row(buf, i, v):
    buf[i] = v
    buf[i // 2, i % 3] = -1.0
    return buf.sum()


buf = torch.zeros(5, 4)
out = write_row(buf, 3, det((4,), seed=1))
out_1 = write_row(buf, 4, det((4,), seed=2))
out_2 = write_row(buf, -1, det((4,), seed=3))
out_3 = buf.clone()
