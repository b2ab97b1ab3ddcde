# case: helper rebinds a global tensor and bumps a global int before a graph break, its caller mutates another global tensor in place; all three globals and the results match eager after each of two calls
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_side_effects_globals
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


running = torch.zeros(3)
offset = torch.zeros(3) + 4
count = 0


def record(t):
    global running, count
    running = running + t
    count += 1
    torch._dynamo.graph_break()
    return running * 2


def stage(t):
    offset.mul_(0.5)
    return record(t) + offset


@torch.compile
def entry(x):
    return x + stage(x.abs())


x = det((3,), seed=1)
out = entry(x)
out_1 = (running.clone(), offset.clone(), count)
out_2 = entry(x)
out_3 = (running.clone(), offset.clone(), count)
