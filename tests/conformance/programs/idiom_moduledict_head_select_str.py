# case: multi-task model with an nn.ModuleDict of heads selected by a string argument; "cls", "reg", "cls", "tag": each new key recompiles (guard on the string), the repeated "cls" reuses its graph
# category: recompile
# from: idiom: nn.ModuleDict-based task heads
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


class MultiTask(nn.Module):
    def __init__(self, d=12):
        super().__init__()
        self.backbone = nn.Linear(d, d)
        self.heads = nn.ModuleDict({"cls": nn.Linear(d, 3), "reg": nn.Linear(d, 1), "tag": nn.Linear(d, 5)})

    def forward(self, x, task: str):
        h = F.gelu(self.backbone(x))
        return self.heads[task](h)


model = MultiTask()
init_params(model)
compiled = torch.compile(model)

x = det((4, 12), seed=1)
out = compiled(x, "cls")
out_1 = compiled(x, "reg")
out_2 = compiled(det((4, 12), seed=2), "cls")
out_3 = compiled(x, "tag")
