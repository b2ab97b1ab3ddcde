# case: a ModuleList of two-element ModuleLists unpacked in the for target (for lin, act in self.pairs); the second call with a new batch size recompiles once (automatic dynamic batch dim)
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_modulelist_nested
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def init_params(module, seed=0):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(det(tuple(p.shape), seed=seed + i, scale=0.5))


class Pairs(nn.Module):
    def __init__(self):
        super().__init__()
        self.pairs = nn.ModuleList()
        for act in (nn.ReLU(), nn.GELU(), nn.Sigmoid()):
            self.pairs.append(nn.ModuleList([nn.Linear(5, 5), act]))

    def forward(self, x):
        for lin, act in self.pairs:
            x = act(lin(x)) + x
        return x * self.pairs[-1][0].bias


mod = Pairs()
init_params(mod, seed=7)
opt = torch.compile(mod)
out = opt(det((4, 5), seed=1))
out_1 = opt(det((7, 5), seed=2))
