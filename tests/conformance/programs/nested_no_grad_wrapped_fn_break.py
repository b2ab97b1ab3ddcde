# case: torch.no_grad()(fn) built inside the compiled function wraps a callee that graph-breaks; after the break the callee still runs with grad disabled and the caller with grad enabled (requires_grad of the two results, logged modes)
# category: ctx
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_graph_break_in_wrapped_user_function
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


flags = []


def scaled(x, w):
    h = x * w
    torch._dynamo.graph_break()
    flags.append(("inside", torch.is_grad_enabled()))
    return h + 2


@torch.compile
def top(x, w):
    y = torch.no_grad()(scaled)(x, w)
    flags.append(("outside", torch.is_grad_enabled()))
    return y, x * w


w = det((4,), seed=2).requires_grad_()
y, z = top(det((4,), seed=1), w)
out = y
out_1 = z.detach()
out_2 = y.requires_grad
out_3 = z.requires_grad
out_4 = list(flags)
