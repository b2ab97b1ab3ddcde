# case: a compiled function that graph-breaks and then calls itself recursively (n = 2, 1, 0); each recursive frame is compiled on its own and the result matches eager on two inputs
# category: graph_break
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_recursive_compiled_fn_with_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def countdown(x, n):
    if n <= 0:
        return x
    torch._dynamo.graph_break()
    return countdown(x * 1.5 + n, n - 1)


f = torch.compile(countdown)
out = f(det((4,), seed=1), 2)
out_1 = f(det((4,), seed=2), 2)
