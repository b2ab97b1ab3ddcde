# case: in-place Tensor.addcmul_ whose value= is a 0-d tensor, under fullgraph=True; returns the mutated input; a new 0-d value tensor reuses the graph
# category: inplace
# from: test/dynamo/test_functions.py::FunctionTests::test_addcmul_
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, y, z, s):
    return x.addcmul_(y, z, value=s)


x = torch.ones(3, 4)
y = det((3, 4), seed=1) + 1.0
z = det((3, 4), seed=2)
r = f(x, y, z, torch.tensor(0.3))
out = r.clone()
out_1 = r is x  # the returned tensor is the mutated argument itself
out_2 = f(x, y, z, torch.tensor(-1.5))
out_3 = x
