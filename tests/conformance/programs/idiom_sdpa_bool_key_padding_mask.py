# case: SDPA with a boolean key-padding mask built in the graph from a lengths tensor (arange < lengths), padded query rows zeroed; new lengths with the same shapes reuse the single graph
# category: model
# from: idiom: attention with F.scaled_dot_product_attention and a padding mask
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


class PaddedSelfAttention(nn.Module):
    def __init__(self, d_model=24, n_heads=3):
        super().__init__()
        self.n_heads = n_heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)

    def split(self, t):
        B, T, C = t.shape
        return t.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2)

    def forward(self, x, lengths):
        B, T, C = x.shape
        valid = torch.arange(T, device=x.device)[None, :] < lengths[:, None]  # (B, T), True = real token
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=valid[:, None, None, :])
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.o(y) * valid[..., None].to(y.dtype)


model = PaddedSelfAttention()
init_params(model)
model.eval()
compiled = torch.compile(model)

x = det((2, 6, 24), seed=2)
with torch.no_grad():
    out = compiled(x, torch.tensor([5, 3]))
    out_1 = compiled(x, torch.tensor([2, 6]))
    out_2 = compiled(det((2, 6, 24), seed=7), torch.tensor([6, 1]))

out_3 = bool((out[1, 3:] == 0).all())
