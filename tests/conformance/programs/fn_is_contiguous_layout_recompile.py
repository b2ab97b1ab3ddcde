# case: branch on x.is_contiguous() / is_contiguous(memory_format=channels_last); contiguous, channels_last and a strided slice of the same shape each compile once, the repeat reuses
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_is_contiguous_frame_counts
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
    if x.is_contiguous():
        return x + 1
    elif x.is_contiguous(memory_format=torch.channels_last):
        return x + 2
    else:
        return x + 3


a = det((2, 3, 4, 4), seed=1)
b = det((2, 3, 4, 4), seed=2).contiguous(memory_format=torch.channels_last)
c = det((2, 3, 6, 6), seed=3)[:, :, 1:-1, 1:-1]
out = f(a)
out_1 = f(b)
out_2 = f(c)
out_3 = f(det((2, 3, 4, 4), seed=4))
