# case: a dict keys() view taken before an insertion must reflect it (len, membership, equality with another dict's keys, list order); all resolved at trace time, one graph
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_dict_keys
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
    d = {"w": x}
    keys = d.keys()
    d["b"] = x + 1
    other = {"b": 0, "w": "z"}
    return x * len(keys) + d["b"], "b" in keys, "c" in keys, other.keys() == keys, list(keys)


out = f(det((2, 3), seed=1))
