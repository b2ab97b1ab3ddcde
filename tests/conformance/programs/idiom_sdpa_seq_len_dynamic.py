# case: causal SDPA (with scale=) called with sequence lengths 4, 6, 8: the second call recompiles with a dynamic sequence length, the third reuses it
# category: dynamic
# from: idiom: causal attention with F.scaled_dot_product_attention, variable sequence length
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def attend(q, k, v):
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
    return y.sum(dim=1)  # merge heads by summing


out = attend(det((1, 2, 4, 8), seed=1), det((1, 2, 4, 8), seed=2), det((1, 2, 4, 8), seed=3))
out_1 = attend(det((1, 2, 6, 8), seed=4), det((1, 2, 6, 8), seed=5), det((1, 2, 6, 8), seed=6))
out_2 = attend(det((1, 2, 8, 8), seed=7), det((1, 2, 8, 8), seed=8), det((1, 2, 8, 8), seed=9))
