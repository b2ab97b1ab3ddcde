# case: nn.Sequential subclass whose forward appends every layer output to a list passed in by the caller; the list is mutated in place and returned (one graph)
# category: module
# from: test/dynamo/test_repros.py::ReproTests::test_seq_append_list
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class CollectingSequential(nn.Sequential):
    def forward(self, x, collected):
        for layer in self:
            x = layer(x)
            collected.append(x)
        return x, collected


model = CollectingSequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=10 + i, scale=0.5))

cmodel = torch.compile(model)
x = det((4, 6), seed=1)
acc = [x]
y, acc_ret = cmodel(x, acc)
out = y
out_1 = acc_ret is acc
out_2 = len(acc)
out_3 = acc[2]  # the ReLU output
out_4 = acc[0] is x
