# case: exception raised inside `with torch.no_grad()` and caught outside it under fullgraph=True: grad mode is restored for the handler (its result requires grad, the no_grad one does not) and after the call
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_exception_with_ctx_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, w):
    y = x * w
    try:
        with torch.no_grad():
            z = torch.sin(y)
            raise NotImplementedError("leave the block")
    except NotImplementedError:
        z2 = torch.sigmoid(y)
    return z, z2


w = det((4,), seed=2).requires_grad_()
z, z2 = f(det((4,), seed=1), w)
out = z
out_1 = z2.detach()
out_2 = z.requires_grad
out_3 = z2.requires_grad
out_4 = torch.is_grad_enabled()
