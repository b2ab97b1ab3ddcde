# case: compiled code creates torch.ones(3) with the default dtype; switching torch.set_default_dtype to float64 fails the global-state guard and recompiles (result promotes to float64), switching back reuses the first graph
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_global_state_guard
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
    return x + torch.ones(3) * 0.5


x32 = det((3,), seed=1)
r0 = f(x32)
torch.set_default_dtype(torch.float64)
try:
    r1 = f(x32)  # default dtype changed: recompile
finally:
    torch.set_default_dtype(torch.float32)
r2 = f(x32)  # back to float32: first graph

out = (str(r0.dtype), str(r1.dtype), str(r2.dtype))
out_1 = r0
out_2 = r1
out_3 = r2
