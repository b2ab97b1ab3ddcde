# case: forward picks a submodule on self.training; switching the module to eval() recompiles (guard on training flag), switching back to train() reuses the first graph
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_istraining1
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


def init_params(module, seed=0):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(det(tuple(p.shape), seed=seed + i, scale=0.5))


class Switch(nn.Module):
    def __init__(self):
        super().__init__()
        self.train_path = nn.Linear(4, 4)
        self.eval_path = nn.Linear(4, 4)

    def forward(self, x):
        if self.training:
            h = self.train_path(x)
        else:
            h = self.eval_path(x)
        return F.relu(h) - 0.1


m = Switch()
init_params(m, seed=2)
opt = torch.compile(m)
x = det((3, 4), seed=2)
m.train()
out = opt(x)
m.eval()
out_1 = opt(x)
out_2 = opt(x + 1)
m.train()
out_3 = opt(x)
out_4 = m.training
