# case: forward reads an int attribute self.calls into the output and then increments it; the mutation must be replayed each call and the changed int invalidates the guard (recompile on the 2nd call)
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_self_mutating1
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


class Counting(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.calls = 0

    def forward(self, x):
        y = self.layer(x) + self.calls
        self.calls += 1
        return F.relu(y)


shared = nn.Linear(5, 5)
init_params(shared, seed=4)
m = Counting(shared)
opt = torch.compile(m)
x = det((2, 5), seed=4)
out = opt(x)
out_1 = opt(x)
out_2 = opt(x)
out_3 = m.calls
