# case: torch.sigmoid(x, out=self.buf) writes into a module buffer inside forward; the buffer must hold the new values after each compiled call
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_sigmoid_out2
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class WithBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("base", torch.zeros(4, 4))

    def forward(self, x):
        torch.sigmoid(x, out=self.base)
        return x + self.base


m = WithBuffer()
cm = torch.compile(m)
out = cm(det((4, 4), seed=1))
out_1 = m.base.clone()
out_2 = cm(det((4, 4), seed=2))
out_3 = m.base.clone()
