# case: GELU MLP whose approximate= mode is a string argument ("none", "tanh", "none"): the second call recompiles on the new string, the third reuses the first graph; tanh and erf results differ slightly
# category: recompile
# from: idiom: GELU MLP (exact vs tanh approximation)
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


W_UP = det((8, 32), seed=1) / math.sqrt(8)
B_UP = 0.1 * det((32,), seed=2)
W_DOWN = det((32, 8), seed=3) / math.sqrt(32)


@torch.compile
def mlp(x, approximate: str):
    h = F.gelu(x @ W_UP + B_UP, approximate=approximate)
    return h @ W_DOWN


x = det((4, 8), seed=4, scale=3.0)
out = mlp(x, "none")
out_1 = mlp(x, "tanh")
out_2 = mlp(det((4, 8), seed=5, scale=3.0), "none")
out_3 = bool(torch.equal(out, out_1))
