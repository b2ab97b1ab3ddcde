# case: residual MLP block whose forward branches on a bool module attribute (pre-norm vs post-norm); flipping the attribute recompiles, flipping it back reuses the first graph
# category: recompile
# from: idiom: LayerNorm placement variants (pre-norm / post-norm residual block)
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


class ResidualMLP(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.pre_norm = True

    def forward(self, x):
        if self.pre_norm:
            return x + self.ff(self.norm(x))
        return self.norm(x + self.ff(x))


model = ResidualMLP()
init_params(model)
compiled = torch.compile(model)

x = det((2, 4, 16), seed=1)
out = compiled(x)
model.pre_norm = False
out_1 = compiled(x)
model.pre_norm = True
out_2 = compiled(det((2, 4, 16), seed=2))
