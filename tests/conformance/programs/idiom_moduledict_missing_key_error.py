# case: selecting a missing key from an nn.ModuleDict inside compiled code raises KeyError to the caller; a variant that catches the KeyError inside forward falls back to a default head
# category: exception
# from: idiom: nn.ModuleDict-based heads with a missing key
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


class Heads(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.trunk = nn.Linear(d, d)
        self.heads = nn.ModuleDict({"a": nn.Linear(d, 2), "b": nn.Linear(d, 3)})

    def forward(self, x, name):
        return self.heads[name](torch.relu(self.trunk(x)))


class HeadsWithDefault(Heads):
    def forward(self, x, name):
        h = torch.relu(self.trunk(x))
        try:
            head = self.heads[name]
        except KeyError:
            head = self.heads["a"]
        return head(h)


strict = Heads()
init_params(strict)
lenient = HeadsWithDefault()
init_params(lenient)
c_strict = torch.compile(strict)
c_lenient = torch.compile(lenient)

x = det((2, 8), seed=1)
out = c_strict(x, "b")
try:
    out_1 = c_strict(x, "zzz")
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = c_lenient(x, "zzz")
out_3 = c_lenient(x, "b")
