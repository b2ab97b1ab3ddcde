# case: stack of residual MLP blocks run for a Python-int depth via range(depth) over an nn.ModuleList; the loop bound specializes, so depths 1, 2, 3 each compile a graph and the repeated depth 2 hits the cache
# category: recompile
# from: idiom: residual blocks in a ModuleList with a variable depth
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


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return F.silu(self.fc(self.norm(x)))


class Stack(nn.Module):
    def __init__(self, d=8, n_blocks=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n_blocks)])

    def forward(self, x, depth: int):
        for i in range(depth):
            x = x + self.blocks[i](x)
        return x


model = Stack()
init_params(model)
compiled = torch.compile(model)

x = det((3, 8), seed=1)
out = compiled(x, 1)
out_1 = compiled(x, 2)
out_2 = compiled(x, 3)
out_3 = compiled(det((3, 8), seed=2), 2)
