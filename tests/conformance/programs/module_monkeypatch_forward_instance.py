# case: a compiled function calls a global module; replacing the instance's forward with another class's forward bound to it (mod.forward = Other.forward.__get__(mod)) must invalidate the graph and recompile with the new forward
# category: guard
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_monkeypatching_forward
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Other(nn.Module):
    def forward(self, x):
        return torch.sin(x) + self.bias_value


class Target(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias_value = 0.25

    def forward(self, x):
        return torch.cos(x) - self.bias_value


mod = Target()


@torch.compile
def run(x):
    return mod(x) * 2


x = det((5,), seed=3)
out = run(x)
out_1 = run(x)
mod.forward = Other.forward.__get__(mod)
out_2 = run(x)
out_3 = run(x + 1)
