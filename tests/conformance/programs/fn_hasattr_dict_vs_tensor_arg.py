# case: the same compiled fn receives a dict, then a tensor, then a float; hasattr(x, "to") / hasattr(x, "items") dispatch on the argument type, each new type recompiles
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_dict_hasattr
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
    if hasattr(x, "to"):
        return x.to(torch.float64) * 2
    if hasattr(x, "items"):
        return torch.cos(x["a"]) + x["b"]
    return x


t = det((2, 3), seed=1)
out = f({"a": t, "b": 1.5})
out_1 = f(t)
out_2 = str(out_1.dtype)
out_3 = f(3.5)
