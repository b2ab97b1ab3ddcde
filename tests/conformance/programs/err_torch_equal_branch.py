# case: torch.equal returns a Python bool that depends on tensor data: `if torch.equal(a, b)` graph-breaks (fullgraph=True raises); equal and unequal inputs take different branches correctly
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_data_dependent_operator2
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def merge_full(a, b):
    s = a + b
    if torch.equal(a, b):
        return s * 0.5
    return s - a * b


@torch.compile
def merge(a, b):
    s = a + b
    if torch.equal(a, b):
        return s * 0.5
    return s - a * b


x = det((3, 4), seed=1)
y = det((3, 4), seed=2)
out = merge(x, x.clone())
out_1 = merge(x, y)
try:
    out_2 = torch.compile(merge_full, fullgraph=True)(x, y)
except Exception as e:
    out_2 = "error: " + type(e).__name__
