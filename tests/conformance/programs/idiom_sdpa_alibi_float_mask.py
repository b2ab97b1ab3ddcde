# case: ALiBi: per-head linear distance bias plus -inf above the diagonal built in the graph and passed to SDPA as a float attn_mask; compared with an eager hand-written softmax
# category: model
# from: idiom: attention with F.scaled_dot_product_attention and an additive float mask (ALiBi)
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


class AlibiAttention(nn.Module):
    def __init__(self, d_model=32, n_heads=4):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / n_heads) for i in range(n_heads)])
        self.register_buffer("slopes", slopes, persistent=False)

    def bias(self, T):
        pos = torch.arange(T)
        rel = pos[None, :] - pos[:, None]  # key index minus query index
        b = self.slopes.view(-1, 1, 1) * rel.to(torch.float32)
        return b.masked_fill(rel > 0, float("-inf"))  # (H, T, T)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.n_heads, C // self.n_heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias(T))
        return y.transpose(1, 2).reshape(B, T, C), q, k, v


model = AlibiAttention()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    y, q, k, v = compiled(det((2, 6, 32), seed=1))
    out = y
    y2, _, _, _ = compiled(det((2, 6, 32), seed=2))
    out_1 = y2
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + model.bias(6)
    ref = (scores.softmax(-1) @ v).transpose(1, 2).reshape(2, 6, 32)
    out_2 = bool(torch.allclose(ref, y, atol=1e-5))
