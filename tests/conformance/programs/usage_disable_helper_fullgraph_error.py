# case: a torch._dynamo.disable'd helper called from a fullgraph=True function raises (cannot skip the disabled call without a break); the same body without fullgraph breaks at the helper and runs
# category: error
# from: test/dynamo/test_decorators.py::DecoratorTests::test_nested_disable_decorator
import math

import torch
import torch._dynamo

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch._dynamo.disable
def clamp_helper(t):
    return t.clamp(-0.5, 0.5)


@torch.compile(fullgraph=True)
def strict(x):
    return clamp_helper(x * 2) + 1


@torch.compile
def lenient(x):
    return clamp_helper(x * 2) + 1


x = det((3, 4), seed=1)
try:
    out = strict(x)
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = lenient(x)
out_2 = lenient(det((3, 4), seed=2))
