# case: assert on a tensor element with a string message inside a fullgraph fn: passes for a good input; a bad input must raise (the error class is recorded)
# category: error
# from: test/dynamo/test_repros.py::ReproTests::test_rewrite_assert_with_msg
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    b = x.sin()
    assert x[0] == 3, "first element must be 3"
    return x.cos() + b


cf = torch.compile(f, fullgraph=True)
out = cf(torch.tensor([3.0, 4.0, 5.0]))
try:
    out_1 = cf(torch.tensor([5.0, 6.0, 7.0]))
except Exception as e:
    out_1 = "error: " + type(e).__name__
