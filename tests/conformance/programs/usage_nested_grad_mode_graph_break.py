# case: set_grad_enabled(False) containing a nested set_grad_enabled(True), with graph breaks inside both blocks: the grad mode must be restored correctly after each break (requires_grad flags, grad mode after the call, backward values); 3 graphs, the second call reuses them
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_nested_grad_mode_graph_break
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
    y = x * 3
    with torch.set_grad_enabled(False):
        torch._dynamo.graph_break()
        a = y * 2
        with torch.set_grad_enabled(True):
            b = y.sin()
            torch._dynamo.graph_break()
            c = b * a
    return a, b, c


x = det((4,), seed=1).requires_grad_()
a, b, c = f(x)
out = c.detach()
out_1 = [a.requires_grad, b.requires_grad, c.requires_grad]
out_2 = torch.is_grad_enabled()
c.sum().backward()
out_3 = x.grad.clone()
out_4 = f(det((4,), seed=2).requires_grad_())[2].detach()
