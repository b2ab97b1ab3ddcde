# case: dynamic=True, fullgraph: torch.zeros((n // 13) * 13) and torch.tensor(y.numel() == 0) on a symbolic size; n = 8, 13, 30 share one graph and give empty / 13 / 26 elements
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_bool_tensor_ctor
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True, fullgraph=True)
def f(x):
    y = torch.zeros((x.size(0) // 13) * 13)
    return torch.tensor(y.numel() == 0), y.shape[0]


out = f(det((8,), seed=1))
out_1 = f(det((13,), seed=2))
out_2 = f(det((30,), seed=3))
