# case: a torch.no_grad() block inside a compiled function on requires_grad inputs: the value computed in the block does not require grad and blocks gradient flow; backward gives grads only through the grad-enabled path
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
def f(a, b):
    x = a * 2
    with torch.no_grad():
        y = x * b
    z = x + y
    return z, y


a = det((3, 4), seed=1).requires_grad_()
b = det((3, 4), seed=2).requires_grad_()
z, y = f(a, b)
out = z.detach()
out_1 = [z.requires_grad, y.requires_grad]
z.sum().backward()
out_2 = a.grad.clone()
out_3 = b.grad is None
