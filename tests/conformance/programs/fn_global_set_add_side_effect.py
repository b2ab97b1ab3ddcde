# case: fullgraph fn adds x.shape[0] to a module-level set (side effect replayed after the graph) and uses len() of the updated set; the second call sees the grown set
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_set_add
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


SEEN = {1, 2}


@torch.compile(fullgraph=True)
def f(x):
    SEEN.add(x.shape[0])
    return torch.cos(x) * len(SEEN)


out = f(det((3, 4), seed=1))
out_1 = sorted(SEEN)
out_2 = f(det((3, 4), seed=2))
out_3 = sorted(SEEN)
