# case: forward tests hasattr(self, "extra"); registering a new Parameter on the module after the first call must be seen (guard failure, recompile), and deleting it again must drop the extra term
# category: guard
# from: test/dynamo/test_modules.py::NNModuleTests::test_hasattr
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


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.zeros(1, 6))

    def forward(self, x):
        x = F.relu(x)
        if hasattr(self, "scale"):
            x = x * self.scale
        if hasattr(self, "extra"):
            x = x + self.extra
        return x


m = Scaled()
with torch.no_grad():
    m.scale.copy_(det((1, 6), seed=5))
opt = torch.compile(m)
x = det((4, 6), seed=1)
out = opt(x)
m.extra = nn.Parameter(det((1, 6), seed=9, scale=0.5))
out_1 = opt(x)
out_2 = hasattr(m, "extra")
del m.extra
out_3 = opt(x)
out_4 = hasattr(m, "extra")
