# case: no_grad / enable_grad / no_grad nested across three frames with a torch.compiler.disable'd probe (graph break) recording grad mode; the probe log, requires_grad of results and the grad mode after the call match eager
# category: ctx
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_supported_ctx_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


grad_log = []


@torch.compiler.disable
def probe(tag):
    grad_log.append(tag + ":" + str(torch.is_grad_enabled()))


def f1(x):
    with torch.no_grad():
        probe("f1")
        return x * 2


def f2(x, w):
    with torch.enable_grad():
        h = x * w
        y = f1(h)
        return h + y


@torch.compile
def f3(x, w):
    with torch.no_grad():
        probe("f3")
        inner = f2(x, w)
        return inner, inner + 6


w = det((3,), seed=2).requires_grad_()
a, b = f3(det((3,), seed=1), w)
out = a.detach()
out_1 = b
out_2 = a.requires_grad
out_3 = b.requires_grad
out_4 = list(grad_log)
out_5 = torch.is_grad_enabled()
