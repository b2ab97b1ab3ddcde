# case: a list of (str, int) pairs is unpacked in a loop but its values never reach tensor math; new strings/ints of the same length reuse the graph (no recompile), a longer list recompiles
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_no_recompile_over_unused_objects
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def body(x, key, items):
    return x * x + 1


@torch.compile(fullgraph=True)
def apply_all(fn, x, pairs):
    items = []
    for key, val in pairs:
        items.append(val)
    return fn(x, key, items)


x = det((10,), seed=1)
out = apply_all(body, x, [("a", 1), ("b", 2)])
out_1 = apply_all(body, x, [("c", 3), ("d", 4)])  # different unused values: no recompile
out_2 = apply_all(body, x, [("e", 5), ("f", 6), ("g", 7)])  # list length changes
