# case: forward sums every buffer from self.named_buffers(); an in-place update of a buffer between calls must be seen without a stale constant (no recompile expected)
# category: module
# from: test/dynamo/test_repros.py::ReproTests::test_named_buffers
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.arange(3, dtype=torch.float32))
        self.register_buffer("b", torch.ones(3) * 2)

    def forward(self, x):
        total = 0
        for _, buf in self.named_buffers():
            total = total + buf.sum()
        return x.cos() + total


m = Buffers()
cm = torch.compile(m, fullgraph=True)
x = det((3,), seed=1)
out = cm(x)
with torch.no_grad():
    m.a.add_(1)
out_1 = cm(x)
