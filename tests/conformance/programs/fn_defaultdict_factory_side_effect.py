# case: module-level defaultdict with a user factory mutated inside the compiled fn (set items, read a missing key which calls the factory, append to it); side effects visible after; 2nd call sees the mutated dict
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_default_dict_closure
import collections
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_bucket():
    return []


store = collections.defaultdict(make_bucket)


@torch.compile
def f(x):
    store["a"] = x + 1
    store["c"] = x * 2
    fresh = store["b"]  # missing key -> make_bucket() inside compiled code
    fresh.append(3)
    return x.sum() + len(fresh)


x = det((3, 3), seed=1)
out = f(x)
out_1 = sorted(store.keys())
out_2 = list(store["b"])
out_3 = store["c"]
out_4 = f(x)  # "b" now exists with one element
out_5 = list(store["b"])
