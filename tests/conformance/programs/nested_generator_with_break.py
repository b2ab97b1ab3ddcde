# case: graph_break between two yields of a generator consumed by list(); compiling the consumer directly and compiling a caller of it (after reset) both give the eager lists/values
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_generator_nested_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def produce(x):
    yield x + 1
    torch._dynamo.graph_break()
    yield x * 2


def collect(x):
    x = x - 4
    return list(produce(x))


def top(x):
    parts = collect(x + 8)
    return parts[0] + parts[1] * 16


x = det((3,), seed=1)
out = torch.compile(collect)(x)
torch._dynamo.reset()
out_1 = torch.compile(top)(x)
