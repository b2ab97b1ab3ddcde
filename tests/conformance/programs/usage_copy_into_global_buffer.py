# case: copy_ into a global float buffer inside compiled code from int64 (broadcast (3,) -> (2,3)) and int32 (2,3) sources: dtype conversion + broadcast, the global is mutated; new source shape/dtype recompiles
# category: inplace
# from: idiom: buffer.copy_(src) in compiled code
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

state = torch.zeros(2, 3)


@torch.compile
def stash(src):
    state.copy_(src)
    return state * 2 + 1


out = stash(torch.arange(3))
out_1 = state.clone()
out_2 = stash(torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32))
out_3 = state.clone()
out_4 = str(out_2.dtype)
