# case: sliding-window causal mask: torch.tril of a bool ones matrix AND an index-distance comparison against a Python-int window (2, 3, 4) passed to SDPA as a bool mask; the window only feeds tensor ops, so the second call recompiles with a dynamic int and the third reuses it
# category: recompile
# from: idiom: causal mask with a sliding window
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
def local_attention(q, k, v, window: int):
    T = q.shape[-2]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool)) & (i - j < window)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)


q = det((1, 2, 6, 8), seed=1)
k = det((1, 2, 6, 8), seed=2)
v = det((1, 2, 6, 8), seed=3)
out = local_attention(q, k, v, 2)
out_1 = local_attention(q, k, v, 3)
out_2 = local_attention(q, k, v, 4)
out_3 = bool(torch.allclose(out[..., :2, :], out_2[..., :2, :], atol=1e-6))
