# case: tensor unpacking inside compiled code: a, b, c = t (rows), h, w = t.shape, q, k = t[:2].unbind(0); one graph, an int product returned
# category: python
# from: idiom: a, b = t tensor unpacking in compiled code
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(t):
    a, b, c = t
    h, w = t.shape
    q, k = t[:2].unbind(0)
    return a * b - c, q @ k, h * w


out = f(det((3, 4), seed=1))
out_1 = f(det((3, 4), seed=2))
