# case: masked_fill_ on an input inside compiled code then `return x`: the caller gets the same tensor object back, mutated; a different float fill value on the second call (float guard / recompile)
# category: inplace
# from: idiom: masked_fill_ on an input and returning it
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def clean(x, fill):
    x.masked_fill_(x < 0, fill)
    return x


x = det((3, 5), seed=1)
r = clean(x, 0.0)
out = x.clone()
out_1 = r is x
x2 = det((3, 5), seed=2)
r2 = clean(x2, -1.0)
out_2 = x2.clone()
out_3 = r2 is x2
