# case: token embedding scaled by sqrt(d) plus a sinusoidal positional-encoding buffer sliced to the sequence length, then LayerNorm; lengths 6, 10, 7: the second call recompiles with a dynamic length, the third reuses it
# category: dynamic
# from: idiom: token embeddings plus sinusoidal positional encodings
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


class SinusoidalEmbedding(nn.Module):
    def __init__(self, vocab=30, d=16, max_len=32):
        super().__init__()
        self.d = d
        self.tok = nn.Embedding(vocab, d)
        self.norm = nn.LayerNorm(d)
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
        pe = torch.zeros(max_len, d)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, ids):
        T = ids.shape[1]
        x = self.tok(ids) * math.sqrt(self.d) + self.pe[:T]
        return self.norm(x)


model = SinusoidalEmbedding()
init_params(model)
compiled = torch.compile(model)


def ids_of(B, T, seed):
    return (torch.arange(B * T).reshape(B, T) * 7 + seed * 3) % 30


with torch.no_grad():
    out = compiled(ids_of(2, 6, 1))
    out_1 = compiled(ids_of(2, 10, 2))
    out_2 = compiled(ids_of(2, 7, 3))
