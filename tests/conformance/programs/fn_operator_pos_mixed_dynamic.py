# case: operator.pos(x) * +y with dynamic=True called with (tensor, int), (int, tensor), (float, float), (bool, bool): result types follow Python/Tensor rules; each argument-type combination recompiles
# category: dynamic
# from: test/dynamo/test_functions.py::FunctionTests::test_pos
import math
import operator

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True, dynamic=True)
def f(x, y):
    return operator.pos(x) * +y


t = det((4,), seed=1)
out = f(t, 3)
out_1 = f(2, t)
out_2 = f(-1.5, 2.5)
out_3 = f(True, False)
