# case: hand-written multi-head attention over token embeddings with a key-padding mask (ids == pad) applied by masked_fill(-inf) and masked mean pooling; two same-shape calls, one graph
# category: model
# from: idiom: multi-head attention written by hand with masked_fill padding mask
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


class Encoder(nn.Module):
    def __init__(self, vocab=20, d_model=16, n_heads=2, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.n_heads = n_heads
        self.embed = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.wq = nn.Linear(d_model, d_model)
        self.wk = nn.Linear(d_model, d_model)
        self.wv = nn.Linear(d_model, d_model)
        self.wo = nn.Linear(d_model, d_model)

    def heads(self, t):
        B, T, C = t.shape
        return t.view(B, T, self.n_heads, C // self.n_heads).permute(0, 2, 1, 3)

    def forward(self, ids):
        B, T = ids.shape
        x = self.embed(ids)
        pad = ids == self.pad_id  # (B, T)
        q, k, v = self.heads(self.wq(x)), self.heads(self.wk(x)), self.heads(self.wv(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        y = self.wo(y.permute(0, 2, 1, 3).reshape(B, T, -1))
        keep = (~pad).unsqueeze(-1).to(y.dtype)
        return (y * keep).sum(dim=1) / keep.sum(dim=1)


model = Encoder()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    out = compiled(torch.tensor([[5, 3, 9, 2, 0, 0], [7, 1, 4, 0, 0, 0]]))
    out_1 = compiled(torch.tensor([[2, 2, 8, 6, 11, 3], [9, 0, 0, 0, 0, 0]]))
