# case: a module-level helper function is rebound to another function between calls; the compiled caller must recompile (global guard) and use the new one
# category: recompile
# from: test/dynamo/test_repros.py::ReproTests::test_global_fn_mutation
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def act(x):
    return torch.sin(x)


def f(x, y):
    return act(x) + y


cf = torch.compile(f, fullgraph=True)
x = det((4,), seed=1)
y = det((4,), seed=2)
out = cf(x, y)


def _cos_act(x):
    return torch.cos(x)


act = _cos_act
out_1 = cf(x, y)
