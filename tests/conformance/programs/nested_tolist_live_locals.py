# case: Tensor.tolist() in the innermost helper is the graph break; tensors computed before the call in every enclosing frame (keep_a in mid, keep_b/keep_c in top) stay live across it
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_differing_locals_nums
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def row_mean(row):
    vals = row.tolist()
    return sum(vals) / len(vals)


def mid(x):
    keep_a = x * 2
    m = row_mean(x[0])
    return keep_a + m


@torch.compile
def top(x):
    keep_b = x.exp()
    keep_c = x - 1
    r = mid(x)
    return r + keep_b * keep_c


out = top(det((3, 4), seed=1))
out_1 = top(det((3, 4), seed=2))
