# case: inner functions decorated with @torch.no_grad() and bare @torch.no_grad inside an enable_grad block of a fullgraph compiled function; decorating must not change the global grad mode, calling them must run without grad
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_context_wrapping_grad_mode_nested_function_decorator
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    with torch.enable_grad():

        @torch.no_grad()
        def inner(v):
            return v.sin() * 2

        @torch.no_grad
        def inner2(v):
            return v.cos() + 1

        mode_after_decorating = torch.is_grad_enabled()
    with torch.enable_grad():
        a = inner(x)
        b = inner2(x)
        c = x.exp()
    return a + b + c, a.requires_grad, b.requires_grad, c.requires_grad, mode_after_decorating


x = det((6,), seed=1).requires_grad_()
out = f(x)
out_1 = f(det((6,), seed=2).requires_grad_())
