# case: a config object's count (loop trip count) and val (float added each step) drive the trace; swapping objects and changing either attribute between calls must give fresh results (guards on the attributes, recompiles)
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_config_obj
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



class Cfg:
    def __init__(self, val, count):
        self.val = val
        self.count = count


@torch.compile
def f(x, cfg):
    for _ in range(cfg.count):
        x = x + cfg.val
    return x


c1 = Cfg(1.0, 3)
c2 = Cfg(0.5, 3)
out = f(torch.zeros(3), c1)
out_1 = f(out, c2)
c2.count = 1
out_2 = f(out_1, c2)
c2.val = 2.0
out_3 = f(out_2, c2)
