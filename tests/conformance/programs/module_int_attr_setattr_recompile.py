# case: a compiled function (dynamic=False) reads an int attribute of a module passed as argument; setting the attribute to new values between calls must recompile each time (3 graphs) and give the new result
# category: recompile
# from: test/dynamo/test_modules.py::NNModuleTests::test_nn_module_setattr
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = 0


@torch.compile(dynamic=False)
def f(x, m):
    return x * 2 + m.offset


m = Holder()
x = det((3, 3), seed=1)
out = f(x, m)
m.offset = 1
out_1 = f(x, m)
m.offset = 5
out_2 = f(x, m)
