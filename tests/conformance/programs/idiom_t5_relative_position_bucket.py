# case: T5-style relative position buckets (integer sign offset, abs/clamp, log-spaced large distances cast to long, torch.where, clamp) feeding an nn.Embedding bias, plus floor division, modulo and trunc division of negative offsets; bidirectional True then False (recompile on the bool)
# category: model
# from: idiom: relative position bias with bucketed integer positions
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


def position_bucket(rel, bidirectional: bool, num_buckets: int, max_distance: int):
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets = num_buckets // 2
        buckets = buckets + (rel > 0).long() * num_buckets
        dist = rel.abs()
    else:
        dist = (-rel).clamp(min=0)
    exact = num_buckets // 2
    small = dist < exact
    log_ratio = torch.log(dist.float().clamp(min=1.0) / exact) / math.log(max_distance / exact)
    large = exact + (log_ratio * (num_buckets - exact)).long()
    large = large.clamp(max=num_buckets - 1)
    return buckets + torch.where(small, dist, large)


class RelativeBias(nn.Module):
    def __init__(self, num_buckets=8, max_distance=20, n_heads=2):
        super().__init__()
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.bias = nn.Embedding(num_buckets, n_heads)

    def forward(self, T: int, bidirectional: bool):
        rel = torch.arange(T)[None, :] - torch.arange(T)[:, None]
        b = position_bucket(rel, bidirectional, self.num_buckets, self.max_distance)
        return b, self.bias(b).permute(2, 0, 1), rel // 3, rel % 3, torch.div(rel, 3, rounding_mode="trunc")


model = RelativeBias()
init_params(model)
compiled = torch.compile(model)

b, bias, fdiv, mod, tdiv = compiled(12, True)
out = b
out_1 = bias
out_2 = [fdiv, mod, tdiv]
b2, bias2, _, _, _ = compiled(12, False)
out_3 = b2
out_4 = bias2
