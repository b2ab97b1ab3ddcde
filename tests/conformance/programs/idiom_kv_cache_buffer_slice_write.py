# case: single-token decoding that writes k/v into registered cache buffers by slice assignment at a Python-int position (2..5) and attends over the prefix; buffer mutations must be visible after each call; position 3 recompiles with a dynamic int
# category: inplace
# from: idiom: KV cache updated in place across decode steps
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


class DecodeAttention(nn.Module):
    def __init__(self, d_model=16, n_heads=2, max_len=8):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.wq = nn.Linear(d_model, d_model, bias=False)
        self.wk = nn.Linear(d_model, d_model, bias=False)
        self.wv = nn.Linear(d_model, d_model, bias=False)
        self.wo = nn.Linear(d_model, d_model, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, n_heads, max_len, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, n_heads, max_len, self.head_dim))

    def forward(self, x, pos: int):
        B, T, C = x.shape
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        self.k_cache[:, :, pos:pos + T] = k
        self.v_cache[:, :, pos:pos + T] = v
        keys = self.k_cache[:, :, :pos + T]
        vals = self.v_cache[:, :, :pos + T]
        att = (q @ keys.transpose(-2, -1)) / math.sqrt(self.head_dim)
        y = att.softmax(dim=-1) @ vals
        return self.wo(y.transpose(1, 2).reshape(B, T, C))


model = DecodeAttention()
init_params(model)
with torch.no_grad():
    # pretend positions 0 and 1 were filled by a prefill step
    model.k_cache[:, :, :2] = det((1, 2, 2, 8), seed=20)
    model.v_cache[:, :, :2] = det((1, 2, 2, 8), seed=21)
compiled = torch.compile(model)

with torch.no_grad():
    out = compiled(det((1, 1, 16), seed=1), 2)
    out_1 = compiled(det((1, 1, 16), seed=2), 3)
    out_2 = compiled(det((1, 1, 16), seed=3), 4)
    out_3 = compiled(det((1, 1, 16), seed=4), 5)
out_4 = model.k_cache.clone()
out_5 = model.v_cache[:, :, 6:].abs().sum().item()
