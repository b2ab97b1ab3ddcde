# case: module-level bool selects the branch; flipping it recompiles (call 2), flipping it back reuses the first graph (call 3)
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_load_global_bool
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


USE_DOUBLE = True


@torch.compile
def f(x):
    if USE_DOUBLE:
        return torch.add(x, x)
    return x * 0.5 - 1


x = det((3, 5), seed=1)
out = f(x)
USE_DOUBLE = False
out_1 = f(x)
USE_DOUBLE = True
out_2 = f(x)
