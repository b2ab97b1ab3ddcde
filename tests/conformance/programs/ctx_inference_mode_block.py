# case: a torch.inference_mode() block inside a compiled function; values computed inside are inference tensors, mode flags inside/after the block and requires_grad of the outside computation must match eager
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
    h = x * w
    with torch.inference_mode():
        g = torch.relu(x) * 2
        inside = torch.is_inference_mode_enabled()
    after = torch.is_inference_mode_enabled()
    return h + 1, g, g.is_inference(), h.requires_grad, inside, after


x = det((4, 4), seed=1)
w = det((4, 4), seed=2).requires_grad_()
out = f(x, w)
out_1 = f(x * 3, w)
