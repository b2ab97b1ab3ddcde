# case: nn.Module.compile() compiles the module in place; later in-place edits of a parameter and a buffer under no_grad must be visible to the compiled module (parameters/buffers are graph inputs, not constants)
# category: module
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_nn_module
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


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)
        self.register_buffer("shift", torch.zeros(3))

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x))) + self.shift


m = MLP()
init_params(m, seed=4)
m.compile()
x = det((4, 6), seed=1)
out = m(x)
with torch.no_grad():
    m.fc2.weight.mul_(0.5)
    m.shift.fill_(1.0)
out_1 = m(x)
out_2 = type(m).__name__
