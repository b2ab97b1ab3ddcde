# case: torch.compile(fn, mode="max-autotune-no-cudagraphs") on a CPU pointwise+reduction function (layer-norm by hand, no matmul): values as eager, second call same shape hits the cache
# category: model
# from: idiom: torch.compile(mode="max-autotune-no-cudagraphs")
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def manual_layer_norm(x, weight, bias):
    mu = x.mean(dim=-1, keepdim=True)
    var = (x - mu).pow(2).mean(dim=-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + 1e-5) * weight + bias


fast = torch.compile(manual_layer_norm, mode="max-autotune-no-cudagraphs")
w = 1.0 + det((8,), seed=3, scale=0.1)
b = det((8,), seed=4, scale=0.1)
out = fast(det((4, 8), seed=1), w, b)
out_1 = fast(det((4, 8), seed=2), w, b)
