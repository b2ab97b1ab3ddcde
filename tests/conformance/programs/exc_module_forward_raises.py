# case: a module forward (with a forward pre-hook) raises ValueError for 3-d input; the exception escapes the compiled lambda to the caller; the module's call counter and the hook log show each call ran exactly once
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_nn_reraise
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Picky(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if x.dim() != 2:
            raise ValueError("expects a matrix")
        return x * 2


hook_dims = []


def pre_hook(mod, args):
    hook_dims.append(args[0].dim())


m = Picky()
m.register_forward_pre_hook(pre_hook)
opt = torch.compile(lambda x: m(x) + 1)
out = opt(det((2, 3), seed=1))
try:
    out_1 = opt(det((2, 3, 2), seed=2))
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = m.calls
out_3 = list(hook_dims)
