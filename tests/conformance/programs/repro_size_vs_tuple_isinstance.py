# case: isinstance(arg, torch.Size) branches: a torch.Size and an equal plain tuple take different paths (type guard, recompile), a different Size value recompiles too
# category: guard
# from: test/dynamo/test_repros.py::ReproTests::test_size_typematch
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(shape, y):
    if isinstance(shape, torch.Size):
        return y + shape[0]
    return y - shape[0]


y = det((3,), seed=1)
out = f(torch.Size((3,)), y)
out_1 = f((3,), y)
out_2 = f(torch.Size((5,)), y)
