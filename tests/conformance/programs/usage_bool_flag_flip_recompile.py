# case: a bool flag argument selecting y * 2 or y * y: flipping the flag recompiles (bool is specialized), new sizes recompile once (automatic dynamic) and are then reused for the same flag
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_recompiles_true_false_flop
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def pick(flag, y):
    if flag:
        return y * 2
    else:
        return y * y


out = pick(True, det((2,), seed=1))
out_1 = pick(False, det((2,), seed=2))
out_2 = pick(True, det((3,), seed=3))
out_3 = pick(True, det((4,), seed=4))
out_4 = pick(True, det((5,), seed=5))
