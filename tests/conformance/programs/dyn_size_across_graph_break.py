# case: x.size() taken before an explicit graph break and used after it (torch.ones(shape)); dim 0 marked dynamic, so a second marked size and then an unmarked tensor reuse both graphs (2 graphs, no recompiles)
# category: graph_break
# from: test/dynamo/test_unspec.py::UnspecTests::test_shape_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    shape = x.size()
    y = x * 2
    torch._dynamo.graph_break()
    return y + torch.ones(shape), shape[0]


a = det((6, 3), seed=1)
torch._dynamo.mark_dynamic(a, 0)
out = f(a)

b = det((9, 3), seed=2)
torch._dynamo.mark_dynamic(b, 0)
out_1 = f(b)

c = det((4, 3), seed=3)
out_2 = f(c)
