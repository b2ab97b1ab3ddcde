# case: compiled code reads a global tensor; rebinding the global to another tensor of the same metadata and mutating it in place must both be seen without recompiling, rebinding it to a tensor of another shape (broadcasting) recompiles
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_global_weakref
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

SCALE = det((4,), seed=1)


@torch.compile
def f(x):
    return x * SCALE + 1


x = det((4,), seed=2)
out = f(x)
SCALE = det((4,), seed=3)  # rebound, same shape/dtype
out_1 = f(x)
SCALE.mul_(2)  # mutated in place
out_2 = f(x)
SCALE = det((1,), seed=4)  # other shape
out_3 = f(x)
