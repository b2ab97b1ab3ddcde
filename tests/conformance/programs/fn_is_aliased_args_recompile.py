# case: `x is y` on two tensor arguments picks the branch; passing the same tensor twice (aliasing) must recompile (call 2) and later calls dispatch by aliasing, not by values
# category: guard
# from: test/dynamo/test_functions.py::DefaultsTests::test_is_tensor_tensor
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, y):
    if x is y:
        return x * 2
    return x + y


a = det((2, 3), seed=1)
b = det((2, 3), seed=2)
out = f(a, b)
out_1 = f(a, a)
out_2 = f(b, b)
out_3 = f(b, a)
