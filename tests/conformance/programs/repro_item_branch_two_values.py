# case: Python branch on .item() of a reduction: graph break at .item(), the two values take different branches; under fullgraph=True the same code raises (caught)
# category: graph_break
# from: test/dynamo/test_repros.py::ReproTests::test_issue111918
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def body(x):
    x = x + 1
    v = x.sum().item()
    if v > 2:
        return x * 2
    return x * 3


def body_strict(x):
    x = x + 1
    v = x.sum().item()
    if v > 2:
        return x * 2
    return x * 3


f = torch.compile(body)
g = torch.compile(body_strict, fullgraph=True)  # separate code object: no shared cache with f
out = f(torch.tensor([3.0, 0.5]))
out_1 = f(torch.tensor([-3.0, 0.5]))
try:
    out_2 = g(torch.tensor([1.0, 2.0]))
except Exception as e:
    out_2 = "error: " + type(e).__name__
