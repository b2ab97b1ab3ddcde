# case: torch.compile on lambdas: two distinct lambdas compile separately; lambdas made by one factory share a code object, so a different closed-over int recompiles that code
# category: python
# from: idiom: torch.compile(lambda x: ...)
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

sq = torch.compile(lambda t: t * t + 1)
cube = torch.compile(lambda t: t ** 3 - t)


def make_adder(k):
    return torch.compile(lambda t: t + k)


add2 = make_adder(2)
add5 = make_adder(5)
x = det((2, 3), seed=1)
out = sq(x)
out_1 = cube(x)
out_2 = sq(det((2, 3), seed=2))
out_3 = add2(x)
out_4 = add5(x)
