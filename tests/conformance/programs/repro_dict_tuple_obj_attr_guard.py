# case: fn reads d['b'][0].k of a dict argument holding a tuple of objects; mutating the object's attribute and then the dict's int value must each recompile (nested guards)
# category: recompile
# from: test/dynamo/test_repros.py::ReproTests::test_guard_with_tuple_mutation
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Cfg:
    def __init__(self):
        self.k = 10


cfg = Cfg()
d = {"a": 2, "b": (cfg,)}


@torch.compile
def f(x, d):
    return x * d["a"] * d["b"][0].k


x = det((3, 3), seed=1)
out = f(x, d)
cfg.k = 12
out_1 = f(x, d)
d["a"] = 3
out_2 = f(x, d)
