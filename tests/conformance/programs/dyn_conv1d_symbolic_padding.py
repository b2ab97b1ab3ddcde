# case: conv1d padding computed from the input length with math.ceil and % 2; odd length 23, then even 30 (recompiles with a dynamic length), then odd 41; padding arithmetic on the symbolic size must match eager
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_conv1d_symint_padding
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

KERNEL = det((1, 1, 4), seed=1, scale=0.5)


@torch.compile
def f(x):
    padding = math.ceil((KERNEL.shape[-1] + x.shape[-1] % 2) / 2) - 1
    return F.conv1d(x, KERNEL, padding=padding, stride=2)


out = f(det((1, 1, 23), seed=2))  # padding 2
out_1 = f(det((1, 1, 30), seed=3))  # padding 1
out_2 = f(det((1, 1, 41), seed=4))  # padding 2
out_3 = [tuple(out.shape), tuple(out_1.shape), tuple(out_2.shape)]
