# case: compiled fn returning views of its input (x[1:], x.t(), x.view(-1)[:4]) plus a reduction: mutating the returned views afterwards must write through to the input; strides/contiguity as eager
# category: inplace
# from: idiom: returning views of inputs from a compiled function
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def views(x):
    return x[1:], x.t(), x.view(-1)[:4], x.sum()


x = det((3, 4), seed=1)
a, b, c, s = views(x)
out = s
a.mul_(0)
out_1 = x.clone()
b[0, 0] = 100.0
out_2 = x.clone()
out_3 = c.clone()
out_4 = [a.is_contiguous(), b.is_contiguous(), b.stride()]
