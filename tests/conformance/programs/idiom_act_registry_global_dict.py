# case: MLP looks its activation up in a global name->function registry dict; replacing the registry entry between calls (silu -> mish) is detected by a guard and recompiles; the next call reuses the new graph
# category: guard
# from: idiom: activation registry (ACT2FN-style dict) in a SiLU MLP
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


ACT2FN = {"gelu": F.gelu, "silu": F.silu, "relu": F.relu}


class MLP(nn.Module):
    def __init__(self, d=8, hidden=16, act="silu"):
        super().__init__()
        self.act = act
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)

    def forward(self, x):
        return self.down(ACT2FN[self.act](self.up(x)))


model = MLP()
init_params(model)
compiled = torch.compile(model)

x = det((3, 8), seed=1, scale=2.0)
out = compiled(x)
ACT2FN["silu"] = F.mish
out_1 = compiled(x)
out_2 = compiled(det((3, 8), seed=2, scale=2.0))
out_3 = bool(torch.allclose(out, out_1))
