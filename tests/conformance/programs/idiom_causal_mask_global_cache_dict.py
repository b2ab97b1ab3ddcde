# case: causal masks memoized in a global dict keyed by sequence length and filled from inside compiled code (dict side effect); T=4 builds and stores, T=4 again must read the stored mask (dict contents guarded), T=6 builds another
# category: python
# from: idiom: causal mask built with torch.triu and cached
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


_MASK_CACHE = {}


def causal_mask(T):
    if T not in _MASK_CACHE:
        _MASK_CACHE[T] = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
    return _MASK_CACHE[T]


@torch.compile
def attend(q, k, v):
    T = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + causal_mask(T)
    return F.softmax(scores, dim=-1) @ v


out = attend(det((2, 4, 8), seed=1), det((2, 4, 8), seed=2), det((2, 4, 8), seed=3))
out_1 = attend(det((2, 4, 8), seed=4), det((2, 4, 8), seed=5), det((2, 4, 8), seed=6))
out_2 = attend(det((2, 6, 8), seed=7), det((2, 6, 8), seed=8), det((2, 6, 8), seed=9))
out_3 = sorted(_MASK_CACHE.keys())
out_4 = _MASK_CACHE[4]
