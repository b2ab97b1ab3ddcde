# case: a nested function decorated with @torch.no_grad() inside the compiled fn: its result must not require grad while the rest does; grad mode restored after; backward through the other output
# category: ctx
# from: test/dynamo/test_functions.py::FunctionTests::test_context_wrapping_nested_functions_no_closure
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    @torch.no_grad()
    def augment(t):
        return (t + 1) * 2

    a = augment(x)
    b = x * 3 + a
    return a, b, a.requires_grad, b.requires_grad


x = det((3, 4), seed=1).requires_grad_()
a, b, a_rg, b_rg = f(x)
out = (a.detach(), b.detach())
out_1 = (a_rg, b_rg)
out_2 = torch.is_grad_enabled()
b.sum().backward()
out_3 = x.grad
