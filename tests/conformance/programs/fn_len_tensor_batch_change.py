# case: len(a) and b.__len__() added to tensors; first dim changes 3 -> 5 -> 8: call 2 recompiles with a dynamic first dim, call 3 reuses it
# category: dynamic
# from: test/dynamo/test_functions.py::FunctionTests::test_tensor_len
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    return a + b + len(a) + b.__len__()


out = f(det((3, 2), seed=1), det((3, 2), seed=2))
out_1 = f(det((5, 2), seed=3), det((5, 2), seed=4))
out_2 = f(det((8, 2), seed=5), det((8, 2), seed=6))
