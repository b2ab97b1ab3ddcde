# case: top-1 MoE that sorts tokens by expert (stable argsort), reads per-expert counts with .tolist() (graph break) and splits the sorted tokens by those Python ints; second input routes differently, so the code after the break sees new split sizes
# category: graph_break
# from: idiom: MoE grouped dispatch with argsort, counts.tolist() and split
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


class SortedMoE(nn.Module):
    def __init__(self, d=8, n_experts=3):
        super().__init__()
        self.n_experts = n_experts
        self.gate = nn.Linear(d, n_experts)
        self.experts = nn.ModuleList([nn.Linear(d, d) for _ in range(n_experts)])

    def forward(self, x):
        sel = self.gate(x).argmax(dim=-1)
        order = torch.argsort(sel, stable=True)
        counts = F.one_hot(sel, num_classes=self.n_experts).sum(dim=0)
        sizes = counts.tolist()
        chunks = x[order].split(sizes, dim=0)
        outs = [torch.tanh(expert(chunk)) for expert, chunk in zip(self.experts, chunks)]
        y_sorted = torch.cat(outs, dim=0)
        y = torch.empty_like(y_sorted)
        y[order] = y_sorted
        return y, sizes


model = SortedMoE()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    y, sizes = compiled(det((9, 8), seed=1))
    out = y
    out_1 = sizes
    y2, sizes2 = compiled(det((9, 8), seed=5))
    out_2 = y2
    out_3 = sizes2
