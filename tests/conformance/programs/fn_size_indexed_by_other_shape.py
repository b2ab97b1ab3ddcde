# case: one input's last dim is used as an index into another input's shape (y.shape[x.shape[-1]]) under fullgraph; the index must be specialized so changing it selects a different dim
# category: dynamic
# from: test/dynamo/test_functions.py::FunctionTests::test_tensor_size_indexed_by_symint
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x, y):
    index = x.shape[-1]
    return x + y.shape[index]


y = det((3, 5, 7), seed=9)
out = f(det((4, 2), seed=1), y)  # y.shape[2] == 7
out_1 = f(det((6, 1), seed=2), y)  # y.shape[1] == 5
out_2 = f(det((5, 2), seed=3), y)  # y.shape[2] == 7 again
