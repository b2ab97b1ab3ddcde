# case: an already-compiled submodule (OptimizedModule) is an attribute of an outer module that is compiled too; the outer compile breaks at the inner compiled module call (separate frames); results must match eager
# category: graph_break
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_composition_with_opt_mod
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


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(torch.sin(x)) * 2


inner = Inner()
opt_inner = torch.compile(inner)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = opt_inner
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(self.sub(torch.cos(x)))


outer = Outer()
init_params(outer, seed=3)
opt_outer = torch.compile(outer)
out = opt_outer(det((2, 4), seed=1))
out_1 = opt_outer(det((2, 4), seed=2))
