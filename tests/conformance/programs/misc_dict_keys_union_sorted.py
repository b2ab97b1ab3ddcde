# case: union of two dicts' key views, sorted, then membership tests per key accumulate into a local tensor in place; returns the tensor and the visited key names
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_tensor_dict3
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(da, db):
    total = torch.zeros(3)
    names = []
    for k in sorted(da.keys() | db.keys()):
        if k in da:
            total += da[k]
        if k in db:
            total *= 2
            total -= db[k]
        names.append(k)
    return total, names


da = {"w": det((3,), seed=1), "b": det((3,), seed=2)}
db = {"b": det((3,), seed=3), "z": det((3,), seed=4)}
out, out_1 = f(da, db)
