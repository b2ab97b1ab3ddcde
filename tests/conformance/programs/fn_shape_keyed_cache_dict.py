# case: a dict argument used as a cache keyed by x.shape (torch.Size as dict key) is filled inside a fullgraph fn; a same-shape call must hit the cached entry, a new shape adds a key
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_torch_size_as_dict_key
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, cache):
    if x.shape not in cache:
        cache[x.shape] = x * 10
    return x + cache[x.shape]


cache = {}
out = f(det((2, 3), seed=1), cache)
out_1 = f(det((2, 3), seed=2), cache)  # cached tensor from the first call is used
out_2 = len(cache)
out_3 = f(det((4, 3), seed=3), cache)
out_4 = len(cache)
out_5 = [list(k) for k in cache]
