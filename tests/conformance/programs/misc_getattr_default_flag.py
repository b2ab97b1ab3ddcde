# case: getattr(obj, "shortcut", False) with a default; setting the attribute later takes the other branch (recompile), setting it back to False needs a third graph; repeated calls hit the cache
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_config_getattr_default
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



class Opts:
    def __init__(self):
        self.val = 0.5
        self.count = 4


@torch.compile
def f(x, o):
    if getattr(o, "shortcut", False):
        return x + 7
    for _ in range(o.count):
        x = x + o.val
    return x


o = Opts()
v = torch.zeros(2)
out = f(v, o)
out_1 = f(v, o)
o.shortcut = True
out_2 = f(v, o)
out_3 = f(v, o)
o.shortcut = False
out_4 = f(v, o)
out_5 = f(v, o)
