# case: inner() calls graph_break() so it is not inlined; the lambda captured by inner is rebound between the two calls, so the second call must see x - y (result x+y + x-y = 2x)
# category: graph_break
# from: test/dynamo/test_functions.py::FunctionTests::test_non_inlined_closure
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def program(x, y):
    op = lambda a, b: a + b  # noqa: E731

    def inner():
        torch._dynamo.graph_break()
        return op(x, y)

    res = inner()
    op = lambda a, b: a - b  # noqa: E731
    res = res + inner()
    return res


x = det((4,), seed=1)
y = det((4,), seed=2)
out = program(x, y)
out_1 = x * 2
