# case: dict argument {"scale": int, "bias": tensor}; changing the int value fails a value guard, adding an unused key changes the dict length, swapping the tensor value for another tensor of the same metadata must reuse the graph with the new values
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_dict_guard_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, d):
    return x * d["scale"] + d["bias"]


x = det((3, 3), seed=1)
d = {"scale": 2, "bias": det((3, 3), seed=2)}
out = f(x, d)
d["scale"] = 3
out_1 = f(x, d)  # int value changed
d["extra"] = 1.5
out_2 = f(x, d)  # dict gained a key (unused)
d["bias"] = det((3, 3), seed=3)
out_3 = f(x, d)  # new tensor value, same metadata
out_4 = sorted(d.keys())
