# case: .item() in a while-loop condition is a graph break inside a loop, so Dynamo skips the whole frame and runs it eagerly; step counts and values differ per input and must match eager
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_graph_break_in_loop
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def shrink(x):
    steps = 0
    while x.abs().max().item() > 0.1:
        x = x * 0.5 + 0.01
        steps += 1
    return x, steps


out = shrink(det((3, 4), seed=1))
out_1 = shrink(det((3, 4), seed=2, scale=8.0))
