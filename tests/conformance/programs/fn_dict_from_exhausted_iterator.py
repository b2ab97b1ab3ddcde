# case: dict(iterator) consumes the iterator, so OrderedDict(same iterator) is empty; iterator exhaustion must be modelled exactly inside the compiled fn
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_call_dict5
import collections
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    pairs = iter([("a", x), ("b", x + 1), ("c", x + 2)])
    d1 = dict(pairs)
    d1["a"] = x + 10
    d2 = collections.OrderedDict(pairs)  # iterator already exhausted
    d2["c"] = x + 20
    return d1["a"] + d2["c"] + d1["b"], len(d1), len(d2), list(d2.keys())


out = f(det((2, 2), seed=1))
