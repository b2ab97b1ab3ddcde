# case: forward stores an intermediate tensor (self.hidden, overwriting an existing value) and a new attribute (self.total) on the module; after each compiled (fullgraph) call the attributes must hold that call's values
# category: module
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_setattr_on_compiled_module
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


class Recorder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)
        self.hidden = torch.full((4, 5), 100.0)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        self.hidden = h
        self.total = x.sum()
        return self.fc2(h)


m = Recorder()
init_params(m, seed=6)
opt = torch.compile(m, fullgraph=True)
out = opt(det((4, 3), seed=1))
out_1 = m.hidden
out_2 = m.total
out_3 = opt(det((4, 3), seed=2))
out_4 = opt.hidden
out_5 = m.total
