# case: hasattr() on a class and a class-level float read inside the compiled fn; adding an attribute to the class and then changing the float must each trigger a recompile (calls 2 and 3)
# category: guard
# from: test/dynamo/test_functions.py::FunctionTests::test_cls_hasattr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Config:
    scale = 2.0


@torch.compile
def f(x):
    y = x * Config.scale if hasattr(Config, "scale") else x
    if hasattr(Config, "shift"):
        y = y + Config.shift
    return y


x = det((3, 4), seed=1)
out = f(x)
Config.shift = 1.5  # hasattr(Config, "shift") flips to True
out_1 = f(x)
Config.scale = 3.0  # constant read from the class changes
out_2 = f(x)
