# case: d["c"] = d["a"] + d.pop("b") on a dict argument inside compiled code: the same dict object is returned, its key order and values change in place; a dict with an extra key recompiles
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_dict_mutation_side_effect
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def fold(d):
    d["c"] = d["a"] + d.pop("b")
    return d


d1 = {"a": det((4,), seed=1), "b": det((4,), seed=2)}
r1 = fold(d1)
out = r1 is d1
out_1 = list(d1.keys())
out_2 = d1["c"]
d2 = {"a": det((4,), seed=3), "z": det((4,), seed=4), "b": det((4,), seed=5)}
r2 = fold(d2)
out_3 = list(d2.keys())
out_4 = r2["c"]
