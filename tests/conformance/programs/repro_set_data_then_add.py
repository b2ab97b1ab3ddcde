# case: x.data = y then y.data = empty inside a fullgraph fn: x takes y's values, y becomes empty, the returned result uses the swapped data
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_tensor_set_data
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, y):
    x.data = y
    y.data = torch.zeros([0])
    return x * 2


x = det((6,), seed=1)
y = det((6,), seed=2)
y_vals = y.clone()
r = f(x, y)
out = r
out_1 = x.clone()
out_2 = list(y.shape)
out_3 = y_vals
