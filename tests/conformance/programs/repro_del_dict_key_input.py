# case: del d['a'] and a new key written into a dict argument inside the compiled fn; the caller's dict must show both mutations
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_delsubscr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(d):
    del d["a"]
    d["c"] = d["b"] * 2
    return d["b"] + 1


d = {"a": det((3,), seed=1), "b": det((3,), seed=2)}
out = f(d)
out_1 = sorted(d.keys())
out_2 = d["c"]
