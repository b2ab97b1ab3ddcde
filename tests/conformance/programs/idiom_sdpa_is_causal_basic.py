# case: causal self-attention via F.scaled_dot_product_attention(is_causal=True) after a fused qkv split; three same-shape calls share one graph; changing future tokens leaves earlier positions unchanged
# category: model
# from: idiom: causal attention with F.scaled_dot_product_attention
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


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model=32, n_heads=4):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        B, T, C = x.shape
        head_dim = C // self.n_heads
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_heads, head_dim).transpose(1, 2)
        k = k.view(B, T, self.n_heads, head_dim).transpose(1, 2)
        v = v.view(B, T, self.n_heads, head_dim).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y)


model = CausalSelfAttention()
init_params(model)
model.eval()
compiled = torch.compile(model)

x1 = det((2, 7, 32), seed=1)
x2 = x1.clone()
x2[:, 4:] = det((2, 3, 32), seed=5)

with torch.no_grad():
    out = compiled(x1)
    out_1 = compiled(x2)
    out_2 = compiled(det((2, 7, 32), seed=3))

# positions 0..3 only see tokens 0..3, which are identical in x1 and x2
out_3 = bool(torch.allclose(out[:, :4], out_1[:, :4], atol=1e-5))
out_4 = bool(torch.allclose(out[:, 4:], out_1[:, 4:], atol=1e-5))
