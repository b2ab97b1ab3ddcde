# case: repeat_interleave with an int repeat count stays in one graph; with a tensor repeat count the output size is data-dependent (graph break expected); both functions mutate their input in place first
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_repeat_interleave_graphbreaks
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def with_int(x):
    x += 1
    x = torch.repeat_interleave(x, 2, 1)
    x += 1
    return x


def with_tensor(x):
    x += 1
    x = torch.repeat_interleave(x, torch.tensor(2), 1)
    x += 1
    return x


f_int = torch.compile(with_int)
f_tensor = torch.compile(with_tensor)
x1 = det((2, 3), seed=1)
x2 = det((2, 3), seed=2)
out = f_int(x1)
out_1 = x1.clone()
out_2 = f_tensor(x2)
out_3 = x2.clone()
