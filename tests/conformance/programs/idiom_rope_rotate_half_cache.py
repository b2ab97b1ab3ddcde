# case: rotary embeddings (rotate_half form) with cos/sin tables precomputed as non-persistent buffers and sliced to the sequence length; two same-shape calls, one graph; rotation keeps vector norms
# category: model
# from: idiom: rotary position embeddings (rotate_half with cached cos/sin buffers)
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


class Rotary(nn.Module):
    def __init__(self, dim=8, max_len=16, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        t = torch.arange(max_len, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, q, k):
        T = q.shape[-2]
        cos = self.cos_cached[:T]
        sin = self.sin_cached[:T]
        q_rot = q * cos + rotate_half(q) * sin
        k_rot = k * cos + rotate_half(k) * sin
        return q_rot, k_rot, q_rot @ k_rot.transpose(-2, -1)


rope = torch.compile(Rotary())

q = det((2, 2, 6, 8), seed=1)
k = det((2, 2, 6, 8), seed=2)
q_rot, k_rot, scores = rope(q, k)
out = q_rot
out_1 = scores
_, k_rot2, scores2 = rope(det((2, 2, 6, 8), seed=3), det((2, 2, 6, 8), seed=4))
out_2 = k_rot2
out_3 = bool(torch.allclose(q_rot.norm(dim=-1), q.norm(dim=-1), atol=1e-5))
