# case: KV cache written with index_copy_ at a tensor position and attention over the whole fixed-size cache with an arange<=pos mask; shapes never change, so four decode steps share one graph; cache buffers mutated in place
# category: inplace
# from: idiom: static-shape KV cache updated with index_copy_ across decode steps
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def init_params(module, offset=0):
    """Overwrite every parameter with deterministic values."""
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            v = det(tuple(p.shape), seed=i + offset)
            if p.dim() > 1:
                p.copy_(v / math.sqrt(p[0].numel()))
            elif name.endswith("weight"):
                p.copy_(1.0 + 0.1 * v)
            else:
                p.copy_(0.1 * v)


class StaticCacheAttention(nn.Module):
    def __init__(self, d_model=12, n_heads=2, max_len=6):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.max_len = max_len
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.register_buffer("k_cache", torch.zeros(1, n_heads, max_len, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, n_heads, max_len, self.head_dim))

    def forward(self, x, pos):
        B, T, C = x.shape  # T == 1
        q, k, v = self.qkv(x).view(B, T, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        visible = torch.arange(self.max_len) <= pos
        att = (q @ self.k_cache.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        att = att.masked_fill(~visible, float("-inf"))
        y = att.softmax(dim=-1) @ self.v_cache
        return y.transpose(1, 2).reshape(B, T, C)


model = StaticCacheAttention()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    out = compiled(det((1, 1, 12), seed=1), torch.tensor([0]))
    out_1 = compiled(det((1, 1, 12), seed=2), torch.tensor([1]))
    out_2 = compiled(det((1, 1, 12), seed=3), torch.tensor([2]))
    out_3 = compiled(det((1, 1, 12), seed=4), torch.tensor([3]))
out_4 = model.k_cache.clone()
out_5 = bool((model.v_cache[:, :, 4:] == 0).all())
