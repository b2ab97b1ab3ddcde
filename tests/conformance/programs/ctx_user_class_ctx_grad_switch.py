# case: a user class context manager whose __enter__/__exit__ switch grad mode with torch.set_grad_enabled(); called under no_grad and then under enable_grad (grad-mode guard -> recompile); body checks torch.is_grad_enabled()
# category: ctx
# from: test/dynamo/test_ctx_manager.py::CtxManagerTests::test_generic_context_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class GradSwitch:
    def __init__(self, mode):
        self.mode = mode
        self.prev = None

    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(self.mode)
        return self

    def __exit__(self, exc_type, exc, tb):
        torch.set_grad_enabled(self.prev)
        return False


@torch.compile
def f(x, w):
    with GradSwitch(True):
        y = x * w + 1
        if torch.is_grad_enabled():
            y = y * 2
        y = torch.relu(y)
    return y - 1, y.requires_grad


x = det((2, 3), seed=1)
w = det((2, 3), seed=2).requires_grad_()
with torch.no_grad():
    out = f(x, w)
    out_1 = torch.is_grad_enabled()
with torch.enable_grad():
    out_2 = f(x, w)
    out_3 = f(x + 1, w)
