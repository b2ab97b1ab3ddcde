# case: torch.Size slicing + tuple concatenation feeds view(*shape) then permute (attention head split); batch size changes 2 -> 4 -> 5: second call recompiles (automatic dynamic), third reuses
# category: dynamic
# from: test/dynamo/test_functions.py::FunctionTests::test_transpose_for_scores
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def split_heads(x):
    new_shape = x.size()[:-1] + (2, 5)
    return x.view(*new_shape).permute(0, 2, 1, 3)


out = split_heads(det((2, 3, 10), seed=1))
out_1 = split_heads(det((4, 3, 10), seed=2))
out_2 = split_heads(det((5, 3, 10), seed=3))
out_3 = list(out_2.shape)
