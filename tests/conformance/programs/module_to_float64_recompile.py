# case: torch.compile(module) then .to(dtype=torch.float64) on the OptimizedModule converts parameters and buffers; calling with float64 input recompiles once, a repeated call does not
# category: recompile
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_to
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


class Mock(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.linear = nn.Linear(5, 5)
        self.register_buffer("buf0", det((5, 5), seed=8))

    def forward(self, x):
        return self.relu(self.linear(x) + self.buf0)


mod = Mock()
init_params(mod, seed=2)
opt = torch.compile(mod)
x = det((5, 5), seed=1)
out = opt(x)
out_1 = opt(x)
opt = opt.to(dtype=torch.float64)
out_2 = opt(x.to(torch.float64))
out_3 = opt(x.to(torch.float64) * 2)
out_4 = [str(out_2.dtype), str(mod.buf0.dtype), type(opt).__name__]
