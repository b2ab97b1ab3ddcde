# case: forward reads a class-level int, a class-level tensor and an instance int; changing the class int and then the instance int each recompile (attribute guards)
# category: guard
# from: test/dynamo/test_repros.py::ReproTests::test_class_member
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Scaled(nn.Module):
    scale = 4
    offset = torch.linspace(-1.0, 1.0, 12).reshape(3, 4)

    def __init__(self):
        super().__init__()
        self.c = 3

    def forward(self, x):
        return x.cos() * self.scale + self.offset + self.c


m = Scaled()
cm = torch.compile(m, fullgraph=True)
x = det((3, 4), seed=1)
out = cm(x)
Scaled.scale = 5
out_1 = cm(x)
m.c = 10
out_2 = cm(x)
