# case: class methods vs instance attributes with the same names: a method beats a registered submodule (methods `activation`, `linear` win over nn.ReLU/nn.Linear in _modules), a plain tensor/float in __dict__ beats a method; compiled result must follow Python lookup rules
# category: python
# from: test/dynamo/test_modules.py::NNModuleTests::test_module_attribute_precedence
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


class Base(nn.Module):
    def linear(self, x, flag=None):
        if flag:
            return x * 2.0
        return x * 3.0


class Shadowed(Base):
    def __init__(self):
        super().__init__()
        self.activation = nn.ReLU()
        self.linear = nn.Linear(4, 4)
        self.offset = torch.ones(4, 4)
        self.scale = 0.5

    def activation(self, x):
        return x * 1.2

    def offset(self):
        return torch.zeros(4, 4)

    def scale(self):
        return 2.0

    def forward(self, x):
        return self.activation(self.linear(self.offset + x)) * self.scale


m = Shadowed()
init_params(m, seed=1)
opt = torch.compile(m)
out = opt(det((4, 4), seed=1))
out_1 = opt(det((4, 4), seed=2))
