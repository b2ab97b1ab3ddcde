# case: a data-dependent if on t.sum() > 0 (graph break) picks a value that a nested closure then writes into a local tensor by index assignment; both branch directions must produce the eager values
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_closure_with_mutation_and_graph_break
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def fn(t):
    x = torch.zeros(3)

    def write():
        x[0] = backup
        x[2] = backup * 2

    if t.sum() > 0:
        backup = 1.5
    else:
        backup = -1.5
    write()
    return x + t


f = torch.compile(fn)
pos = det((3,), seed=1).abs() + 0.1
out = f(pos)
out_1 = f(-pos)
