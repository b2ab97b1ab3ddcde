# case: hand-written cross-attention (queries from the decoder, keys/values from an encoder memory); memory length 6, 9, 11: second call recompiles with a dynamic memory length, third reuses it
# category: dynamic
# from: idiom: multi-head cross-attention written by hand
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


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


class CrossAttention(nn.Module):
    def __init__(self, d_model=16, d_mem=12, n_heads=4):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.q = nn.Linear(d_model, d_model)
        self.kv = nn.Linear(d_mem, 2 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x, memory):
        B, T, C = x.shape
        S = memory.shape[1]
        q = self.q(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(memory).view(B, S, 2, self.n_heads, self.head_dim).unbind(dim=2)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        w = F.softmax(q @ k.transpose(-2, -1) * (self.head_dim ** -0.5), dim=-1)
        y = (w @ v).transpose(1, 2).reshape(B, T, C)
        return self.norm(x + self.out(y))


model = CrossAttention()
init_params(model)
compiled = torch.compile(model)

x = det((2, 4, 16), seed=1)
with torch.no_grad():
    out = compiled(x, det((2, 6, 12), seed=2))
    out_1 = compiled(x, det((2, 9, 12), seed=3))
    out_2 = compiled(x, det((2, 11, 12), seed=4))
