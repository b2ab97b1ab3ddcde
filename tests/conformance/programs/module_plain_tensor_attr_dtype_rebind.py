# case: forward rebinds a plain tensor attribute with self.table = self.table.to(x); a float64 input changes the stored attribute's dtype (persisting after the call) and recompiles; later float64 calls reuse the second graph
# category: module
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_no_op_assignment
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Caster(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = det((4,), seed=2)

    def forward(self, x):
        x = x + 1
        self.table = self.table.to(x)
        return self.table * x


@torch.compile
def run(mod, x):
    return mod(x)


m = Caster()
out = run(m, det((4,), seed=1))
out_1 = str(m.table.dtype)
out_2 = run(m, det((4,), seed=1).to(torch.float64))
out_3 = str(m.table.dtype)
out_4 = run(m, det((4,), seed=7).to(torch.float64))
out_5 = str(out_4.dtype)
