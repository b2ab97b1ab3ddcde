# case: object whose attributes x and y hold tensors; fn does obj.x.add_(1) then returns obj.x * obj.y; an object with two distinct tensors compiles once, an object whose x and y are the same tensor must fail the aliasing guard (recompile) and see the in-place update through y
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_tensor_aliasing_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Holder:
    def __init__(self, x, y):
        self.x = x
        self.y = y


@torch.compile
def f(obj):
    obj.x.add_(1)
    return obj.x * obj.y


p = det((2, 3), seed=1)
q = det((2, 3), seed=2)
h1 = Holder(p.clone(), q.clone())
r1 = f(h1)  # (p + 1) * q

shared = p.clone()
h2 = Holder(shared, shared)
r2 = f(h2)  # x is y: (p + 1) * (p + 1)

h3 = Holder(q.clone(), p.clone())
r3 = f(h3)  # distinct again: reuses the first graph

out = (r1, h1.x)
out_1 = (r2, shared)
out_2 = r3
