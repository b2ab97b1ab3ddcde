# case: rotary module that rebuilds its cos/sin tensor attributes inside forward when the sequence outgrows the cache (module attribute mutation inside compiled code); T=3 uses the init cache, T=6 rebuilds (recompile), T=5 sees cached_len=6 (recompile, no rebuild)
# category: module
# from: idiom: rotary position embeddings with a lazily extended cos/sin cache
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LazyRotary(nn.Module):
    def __init__(self, dim=8, base=10000.0, init_len=4):
        super().__init__()
        self.register_buffer(
            "inv_freq", 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim)), persistent=False
        )
        self.cached_len = 0
        self._build(init_len)

    def _build(self, n):
        t = torch.arange(n, dtype=torch.float32)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos_cached = emb.cos()
        self.sin_cached = emb.sin()
        self.cached_len = n

    def forward(self, x):
        T = x.shape[-2]
        if T > self.cached_len:
            self._build(T)
        return x * self.cos_cached[:T] + rotate_half(x) * self.sin_cached[:T]


model = LazyRotary()
compiled = torch.compile(model)

out = compiled(det((1, 2, 3, 8), seed=1))
out_1 = compiled(det((1, 2, 6, 8), seed=2))
out_2 = model.cached_len
out_3 = compiled(det((1, 2, 5, 8), seed=3))
out_4 = [model.cached_len, model.cos_cached.shape[0]]
