# case: torch._dynamo.disable(recursive=False) skips only the decorated frame: the outer fn compiles (tan), the skipped middle runs eagerly, the inner function it calls is compiled as its own frame (2 graphs)
# category: graph_break
# from: test/dynamo/test_decorators.py::DecoratorTests::test_disable_recursive_false
import math

import torch
import torch._dynamo

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def inner(x):
    return x.cos() + 1


@torch._dynamo.disable(recursive=False)
def middle(x):
    y = x.sigmoid()
    return inner(y * 3) * 2


@torch.compile
def outer(x):
    return middle(x.tan())


out = outer(det((5,), seed=1))
out_1 = outer(det((5,), seed=2))
