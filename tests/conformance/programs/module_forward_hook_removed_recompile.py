# case: a module with a forward hook (modifies output, appends to a Python list) is called inside a compiled function; the hook is inlined into the graph and its list side effect replayed per call; removing the hook recompiles and the output changes
# category: module
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_hooks_inner
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Affine(nn.Module):
    def forward(self, x):
        return 2 * x + 1


m = Affine()
hook_calls = []


def post_hook(module, inputs, output):
    hook_calls.append(len(inputs))
    return output * 3 - 1


handle = m.register_forward_hook(post_hook)


@torch.compile
def outer(t):
    u = t * 0.5 + 1
    return m(u)


x = det((3, 4), seed=1)
out = outer(x)
out_1 = outer(x + 1)
out_2 = list(hook_calls)
handle.remove()
out_3 = outer(x)
out_4 = len(hook_calls)
