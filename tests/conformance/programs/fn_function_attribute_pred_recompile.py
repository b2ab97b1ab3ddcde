# case: the function reads an attribute stored on itself (fn.pred); toggling the attribute between calls recompiles (call 2), toggling back reuses the first graph (call 3)
# category: guard
# from: test/dynamo/test_functions.py::DefaultsTests::test_fn_with_attr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def fn(x):
    if fn.pred:
        return torch.relu(x * 2)
    return torch.abs(x + 3)


fn.pred = True
opt_fn = torch.compile(fn)
x = det((5,), seed=1, scale=4.0)
out = opt_fn(x)
fn.pred = False
out_1 = opt_fn(x)
fn.pred = True
out_2 = opt_fn(x)
