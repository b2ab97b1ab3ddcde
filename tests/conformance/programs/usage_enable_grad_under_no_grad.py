# case: torch.enable_grad() inside a compiled function that is called under torch.no_grad(): only the enable_grad part records autograd; later call with grad enabled recompiles (grad-mode guard)
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_no_grad
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, w):
    h = x @ w
    with torch.enable_grad():
        g = torch.tanh(h * w.sum())
    return h, g


x = det((3, 4), seed=1)
w = det((4, 2), seed=2, scale=0.5).requires_grad_()
with torch.no_grad():
    h, g = f(x, w)
out = g.detach()
out_1 = [h.requires_grad, g.requires_grad]
g.sum().backward()
out_2 = w.grad.clone()
h2, g2 = f(x, w)
out_3 = [h2.requires_grad, g2.requires_grad]
out_4 = h2.detach()
