# case: forward indexes a tensor attribute with self.t // 4 for a negative int attribute and increments it; Python floor division semantics on negatives, the attribute changes every call
# category: module
# from: test/dynamo/test_repros.py::ReproTests::test_negative_floor_div_solve
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Stepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.arange(1, 11, dtype=torch.float32) * 1.5
        self.t = -6

    def forward(self, x):
        picked = self.table[self.t // 4]
        self.t += 1
        return x * picked


m = Stepper()
cm = torch.compile(m)
x = det((3,), seed=1)
results = [cm(x) for _ in range(4)]  # t = -6, -5, -4, -3 -> indices -2, -2, -1, -1
out = results
out_1 = m.t
