# case: torch.compile(fn, disable=True) runs fn eagerly (no graphs, the graph_break call is a no-op, the side effect runs every call); the same fn compiled normally breaks into 2 graphs
# category: graph_break
# from: test/dynamo/test_decorators.py::DecoratorTests::test_disable_optimize
import math

import torch
import torch._dynamo

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

log = []


def body(x):
    log.append(tuple(x.shape))
    y = x.exp() - 1
    torch._dynamo.graph_break()
    return y * y


plain = torch.compile(body, disable=True)
out = plain(det((2, 3), seed=1))
out_1 = plain(det((4, 3), seed=2))
compiled = torch.compile(body)
out_2 = compiled(det((2, 3), seed=3))
out_3 = len(log)
out_4 = log
