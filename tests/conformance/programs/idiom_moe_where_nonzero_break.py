# case: top-1 MoE that loops over experts, finds each expert's tokens with torch.where(mask) (nonzero: data-dependent output shape -> graph break in every iteration) and accumulates with index_add_
# category: graph_break
# from: idiom: MoE routing with torch.where token selection and index_add_
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


class LoopMoE(nn.Module):
    def __init__(self, d=8, n_experts=2, hidden=12):
        super().__init__()
        self.gate = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList(
            [nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d)) for _ in range(n_experts)]
        )

    def forward(self, x):
        probs = F.softmax(self.gate(x), dim=-1)
        weight, chosen = probs.max(dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            tok = torch.where(chosen == e)[0]
            out.index_add_(0, tok, expert(x[tok]) * weight[tok, None])
        return out, chosen


model = LoopMoE()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    y, chosen = compiled(det((7, 8), seed=1))
    out = y
    out_1 = chosen
    y2, chosen2 = compiled(det((7, 8), seed=2))
    out_2 = y2
    out_3 = chosen2
