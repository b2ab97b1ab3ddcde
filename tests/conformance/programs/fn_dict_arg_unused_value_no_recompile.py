# case: dict argument where only cfg["scale"] is read; changing an unread entry must not recompile (call 2), changing the read int does (call 3)
# category: guard
# from: test/dynamo/test_functions.py::FunctionTests::test_dict_tuple_lazy_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, cfg):
    return torch.sin(x) * cfg["scale"]


x = det((3,), seed=1)
out = f(x, {"scale": 2, "other": 1})
out_1 = f(x, {"scale": 2, "other": 7})  # unread value changed
out_2 = f(x, {"scale": 3, "other": 7})  # read value changed
