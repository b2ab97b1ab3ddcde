# case: forward decorated with @torch.compile on a submodule class used by two instances with different weights; the second instance (and a replacement instance) reuse the compiled code but must use their own parameters; a wider instance (different weight shape) recompiles
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_inline_inbuilt_nn_modules_candidate
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class SubMod(nn.Module):
    def __init__(self, seed, out_features=2):
        super().__init__()
        self.linear = nn.Linear(2, out_features)
        with torch.no_grad():
            self.linear.weight.copy_(det((out_features, 2), seed=seed))
            self.linear.bias.copy_(det((out_features,), seed=seed + 10))

    @torch.compile
    def forward(self, x):
        return self.linear(x)


class Mod(nn.Module):
    def __init__(self):
        super().__init__()
        self.sm1 = SubMod(1)
        self.sm2 = SubMod(2)

    def forward(self, x):
        return self.sm1(x) + self.sm2(x)


mod = Mod()
x = det((2, 2), seed=3)
out = mod(x).detach()
out_1 = mod(x).detach()
mod.sm2 = SubMod(4)  # replaced submodule with new weights, same shapes
out_2 = mod(x).detach()
wide = SubMod(5, out_features=3)
out_3 = wide(x).detach()  # weight shape (3, 2): recompile
