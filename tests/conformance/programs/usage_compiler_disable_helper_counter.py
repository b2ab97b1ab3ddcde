# case: torch.compiler.disable on a logging helper called between tensor ops: graph break at the helper (2 graphs), the helper runs eagerly once per call and its Python side effect (list append) is seen each call
# category: graph_break
# from: test/dynamo/test_decorators.py::DecoratorTests::test_nested_disable_decorator
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

calls = []


@torch.compiler.disable
def log_stats(t):
    calls.append(float(t.abs().max()))
    return t * 0.5


@torch.compile
def f(x):
    y = torch.sin(x) + 1
    y = log_stats(y)
    return torch.cos(y) * 2


out = f(det((4, 5), seed=1))
out_1 = f(det((4, 5), seed=2))
out_2 = len(calls)
out_3 = calls
