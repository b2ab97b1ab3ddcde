# case: filter() with a predicate that calls bool() on a tensor element is data dependent: graph break when allowed (correct result), and fullgraph=True (after reset) must raise
# category: graph_break
# from: test/dynamo/test_functions.py::FunctionTests::test_filter_fallback
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def pick(inputs):
    acc = inputs[0]
    for t in filter(lambda v: v[0] == 1, inputs):
        acc = acc * t
    return acc


inputs = [
    torch.ones(3),
    torch.tensor([1.0, 2.0, 3.0]),
    torch.tensor([0.0, 5.0, 6.0]),
    det((3,), seed=1) + 2.0,
    torch.tensor([1.0, -1.0, 0.5]),
]
out = torch.compile(pick)(inputs)

torch._dynamo.reset()
try:
    out_1 = torch.compile(pick, fullgraph=True)(inputs)
except Exception as e:
    out_1 = "error: " + type(e).__name__
