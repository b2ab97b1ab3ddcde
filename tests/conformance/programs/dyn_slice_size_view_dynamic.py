# case: dynamic=True: slice the first 5 rows, unpack the symbolic size, allocate with torch.empty((r, c)), copy_ into it and view it as (r*c//2, 2); rows 7 and 9 share a graph, 4 rows (slice shorter than 5) needs its own guard
# category: dynamic
# from: test/dynamo/test_dynamic_shapes.py::DynamicShapesMiscTests::test_unpack4_dynamic_shapes
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True)
def f(a, b):
    a = a[:5, :]
    b = b[:5, :]
    r, c = a.size()
    o = torch.empty((r, c))
    o.copy_(a / (b.abs() + 1))
    return o.view(r * c // 2, 2), r, c


out = f(det((7, 6), seed=1), det((7, 6), seed=2))
out_1 = f(det((9, 6), seed=3), det((9, 6), seed=4))
out_2 = f(det((4, 6), seed=5), det((4, 6), seed=6))
