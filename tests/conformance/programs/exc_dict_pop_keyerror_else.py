# case: dict.pop of a missing key raises KeyError (handler) or succeeds (else branch) under fullgraph=True; the pop must mutate the caller's dict, and the two dicts with different keys compile separately
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_dict_pop
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(d, x):
    try:
        v = d.pop("b")
    except KeyError:
        return torch.sin(x), len(d)
    else:
        return torch.cos(x) * v, len(d)


x = det((4,), seed=1)
d1 = {"a": 1}
out = f(d1, x)
d2 = {"a": 1, "b": 2}
out_1 = f(d2, x)
out_2 = sorted(d2.keys())
out_3 = len(d1)
