# case: a helper method called from forward branches on a tensor value (if x.sum() > 0), a data-dependent graph break inside a module method; inputs with positive and negative sums take both branches
# category: graph_break
# from: test/dynamo/test_modules.py::NNModuleTests::test_unsupportedmethod
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


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 5)

    def pick(self, h, x):
        if x.sum() > 0:
            return h * 2
        return h - 1

    def forward(self, x):
        h = self.fc(x)
        return self.pick(h, x) + x


m = Gated()
init_params(m, seed=5)
opt = torch.compile(m)
out = opt(det((3, 5), seed=1) + 1.0)
out_1 = opt(det((3, 5), seed=2) - 1.0)
out_2 = opt(det((3, 5), seed=3) + 1.0)
