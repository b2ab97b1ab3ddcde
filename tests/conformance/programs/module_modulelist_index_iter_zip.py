# case: a ModuleList walked by range(len)+index, plain iteration, zip with tensors and ints, and enumerate over a reversed slice inside one compiled forward; expected a single graph with no breaks, the second call reuses it
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_modulelist
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


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh()])

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        for layer in self.layers:
            x = layer(x)
        for layer, skip in zip(self.layers, (x, x * 0.5, x, x * 0.25)):
            x = layer(x) + skip
        for layer, k in zip(self.layers, (1, 2, 3, 4)):
            x = layer(x) * k
        for idx, layer in enumerate(self.layers[::-1]):
            x = layer(x) + idx
        return x


mod = Stack()
init_params(mod, seed=3)
opt = torch.compile(mod)
out = opt(det((4, 6), seed=1))
out_1 = opt(det((4, 6), seed=2))
