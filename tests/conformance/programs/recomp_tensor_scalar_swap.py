# case: second argument alternates between a tensor and a Python int while the first argument's size grows; type guard recompiles each kind once, automatic dynamic absorbs the sizes (3 graphs for 5 calls)
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_automatic_dynamic_tensor_scalar_change
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
    return x * y + 1


out = f(det((2,), seed=1), det((2,), seed=2))  # tensor * tensor, size 2
out_1 = f(det((3,), seed=3), 3)  # y is an int now: recompile
out_2 = f(det((4,), seed=4), det((4,), seed=5))  # tensor again, new size: recompile (dynamic)
out_3 = f(det((5,), seed=6), 4)  # int again, new size and new int value
out_4 = f(det((6,), seed=7), det((6,), seed=8))  # tensor, another size
