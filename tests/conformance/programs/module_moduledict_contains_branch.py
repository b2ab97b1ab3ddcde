# case: forward branches on `"key" in self.table` (an nn.ModuleDict); two instances with different keys share the same forward code, so the second instance compiles a second graph; fullgraph, no breaks
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_nn_moduledict_contains
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


class Router(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, x):
        if "proj" in self.table:
            x = self.table["proj"](x)
        if "norm" in self.table:
            x = self.table["norm"](x)
        return x + 1.0


a = Router(nn.ModuleDict({"proj": nn.Linear(4, 4)}))
b = Router(nn.ModuleDict({"norm": nn.LayerNorm(4)}))
init_params(a, seed=1)
init_params(b, seed=5)
opt_a = torch.compile(a, fullgraph=True)
opt_b = torch.compile(b, fullgraph=True)
x = det((3, 4), seed=2)
out = opt_a(x)
out_1 = opt_b(x)
out_2 = opt_a(x * 2)
