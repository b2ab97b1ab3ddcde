# case: list.index of a string argument: a present key works (a new key recompiles); a missing key raises under fullgraph (caught), and a try/except ValueError inside a non-fullgraph fn handles it
# category: error
# from: test/dynamo/test_repros.py::ReproTests::test_list_index_not_found
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(t, key):
    names = ["bar", "foo", "baz"]
    return t + names.index(key)


@torch.compile
def g(t, key):
    names = ["bar", "foo", "baz"]
    try:
        pos = names.index(key)
    except ValueError:
        pos = -1
    return t + pos


x = det((2,), seed=1)
out = f(x, "baz")
try:
    out_1 = f(x, "missing")
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = g(x, "missing")
