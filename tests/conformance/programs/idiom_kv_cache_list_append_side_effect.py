# case: a Python list used as a KV cache is appended to inside the compiled function (side effect replayed on the caller's list) and concatenated; the list length is guarded, so each of the three calls compiles a new graph
# category: python
# from: idiom: KV cache kept as a Python list of tensors across decode steps
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


WK = det((8, 8), seed=11) / math.sqrt(8)


@torch.compile
def attend_and_cache(x, cache):
    k = x @ WK
    cache.append(k)
    keys = torch.cat(cache, dim=0)
    w = F.softmax(x @ keys.transpose(0, 1), dim=-1)
    return w @ keys


cache = []
out = attend_and_cache(det((1, 8), seed=1), cache)
out_1 = attend_and_cache(det((1, 8), seed=2), cache)
out_2 = attend_and_cache(det((1, 8), seed=3), cache)
out_3 = len(cache)
out_4 = cache[1]
