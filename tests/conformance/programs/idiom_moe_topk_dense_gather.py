# case: top-2 mixture of experts computed densely (einsum over stacked expert weights) and combined with torch.gather on the top-k indices; 6 then 10 tokens (second call recompiles with a dynamic token count)
# category: model
# from: idiom: MoE top-k routing with gather
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


class DenseTopKMoE(nn.Module):
    def __init__(self, d=8, n_experts=4, hidden=16, k=2):
        super().__init__()
        self.k = k
        self.router = nn.Linear(d, n_experts, bias=False)
        self.w_in = nn.Parameter(torch.empty(n_experts, d, hidden))
        self.w_out = nn.Parameter(torch.empty(n_experts, hidden, d))

    def forward(self, x):
        probs = F.softmax(self.router(x), dim=-1)
        top_w, top_i = probs.topk(self.k, dim=-1)
        top_w = top_w / top_w.sum(dim=-1, keepdim=True)
        h = F.silu(torch.einsum("nd,edh->neh", x, self.w_in))
        all_out = torch.einsum("neh,ehd->ned", h, self.w_out)
        idx = top_i.unsqueeze(-1).expand(-1, -1, all_out.shape[-1])
        chosen = torch.gather(all_out, 1, idx)
        return (chosen * top_w.unsqueeze(-1)).sum(dim=1), top_i


model = DenseTopKMoE()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    y, idx = compiled(det((6, 8), seed=1))
    out = y
    out_1 = idx
    y2, idx2 = compiled(det((10, 8), seed=2))
    out_2 = y2
    out_3 = idx2
