# case: compiled code tests `"a" in d` and `"c" not in d` on a dict argument; a dict with the same keys and an unread value changed reuses the graph, dicts where the membership answers flip recompile into the other branches
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_dict_contains_guard
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
    if "a" in d:
        x = x + d["a"]
    if "c" not in d:
        x = x * 2
    return x


x = det((4,), seed=1)
out = f(x, {"a": 1, "b": 2})
out_1 = f(x, {"a": 1, "b": 7})  # only the unread value differs
out_2 = f(x, {"b": 2, "c": 3})  # "a" gone, "c" present
out_3 = f(x, {})  # neither key
