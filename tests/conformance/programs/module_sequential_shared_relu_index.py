# case: nn.Sequential built from an OrderedDict that reuses one ReLU instance; forward slices it ([:2]), reads a child by name, indexes with negative and len()-based indices, and also calls it whole; both paths must agree
# category: module
# from: test/dynamo/test_modules.py::NNModuleTests::test_sequential_with_duplicated_module2
import collections
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


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.body = nn.Sequential(
            collections.OrderedDict(
                [
                    ("fc1", nn.Linear(6, 8)),
                    ("act1", self.act),
                    ("fc2", nn.Linear(8, 8)),
                    ("act2", self.act),
                    ("fc3", nn.Linear(8, 3)),
                ]
            )
        )

    def forward(self, x):
        h = self.body[:2](x)
        h = self.body.fc2(h)
        h = self.body[-2](h)
        y = self.body[len(self.body) - 1](h)
        return y, self.body(x)


net = Net()
init_params(net, seed=11)
opt = torch.compile(net)
out = opt(det((5, 6), seed=1))
out_1 = opt(det((5, 6), seed=2))
out_2 = len(list(net.parameters()))
