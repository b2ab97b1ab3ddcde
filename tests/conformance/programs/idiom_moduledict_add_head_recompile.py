# case: forward iterates over every head of an nn.ModuleDict; adding a head to the dict between calls changes the module structure, so the second call recompiles and returns one more column; the third call reuses it
# category: module
# from: idiom: nn.ModuleDict-based heads iterated in forward
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


class AllHeads(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.trunk = nn.Linear(d, d)
        self.heads = nn.ModuleDict({"a": nn.Linear(d, 2), "b": nn.Linear(d, 2)})

    def forward(self, x):
        h = torch.relu(self.trunk(x))
        scores = [head(h).sum(dim=-1) for name, head in self.heads.items()]
        return torch.stack(scores, dim=-1)


model = AllHeads()
init_params(model)
compiled = torch.compile(model)

x = det((3, 8), seed=1)
out = compiled(x)
extra = nn.Linear(8, 2)
init_params(extra, offset=20)
model.heads["c"] = extra
out_1 = compiled(x)
out_2 = compiled(det((3, 8), seed=2))
out_3 = list(model.heads.keys())
