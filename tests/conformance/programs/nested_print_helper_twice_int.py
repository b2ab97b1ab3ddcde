# case: a helper with a print() graph break is called twice from the compiled function on int64 tensors; the resume after the first call must continue into the second; << shift, % and // on negative ints follow eager (floor) semantics
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_single_graph_break_repeat
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def bump(v):
    w = v * 3
    print("bump on", v.shape[0], "values")
    return w + 1


@torch.compile
def top(v):
    lo = bump(v)
    hi = bump(v + 8) << 4
    return (lo + hi - 5000) % 1000, (lo - hi) // 7


v = torch.arange(-6, 6, dtype=torch.int64)
out = top(v)
out_1 = top(v.abs() * 5 + 1)
