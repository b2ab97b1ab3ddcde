# case: cache write at a position read with .item(): with fullgraph=True the .item() graph break raises (no side effect on the cache), without fullgraph it breaks at .item() and writes the cache in the resumed code
# category: error
# from: idiom: KV cache slot write at a tensor-valued position
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def write_slot(cache, pos_t, k):
    p = pos_t.item()
    cache[p] = k
    return cache[: p + 1].sum(dim=0)


strict = torch.compile(write_slot, fullgraph=True)
loose = torch.compile(write_slot)

cache = torch.zeros(6, 4)
try:
    out = strict(cache, torch.tensor(2), det((4,), seed=1))
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = bool((cache == 0).all())
out_2 = loose(cache, torch.tensor(2), det((4,), seed=1))
out_3 = loose(cache, torch.tensor(4), det((4,), seed=2))
out_4 = cache.clone()
