# case: globals read by a compiled fn changed between calls: rebinding a global float recompiles (guard on its value), an in-place update of a global tensor is seen without recompiling, rebinding the global tensor to a new shape recompiles
# category: guard
# from: idiom: globals mutated between calls of a compiled function
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

SCALE = 2.0
OFFSET = torch.zeros(4)


@torch.compile
def f(x):
    return x * SCALE + OFFSET


x = det((2, 4), seed=1)
out = f(x)
SCALE = 3.0
out_1 = f(x)
OFFSET.add_(1.5)
out_2 = f(x)
OFFSET = det((2, 4), seed=2)
out_3 = f(x)
