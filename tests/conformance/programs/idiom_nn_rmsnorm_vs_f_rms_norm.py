# case: nn.RMSNorm module, F.rms_norm with the same weight, a hand-written RMSNorm, and F.rms_norm over a 2-D normalized_shape with eps=None, all in one compiled function; 3 rows then 5 rows (recompile with a dynamic batch)
# category: model
# from: idiom: RMSNorm variants (nn.RMSNorm, F.rms_norm, manual)
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


norm = nn.RMSNorm(16, eps=1e-6)
with torch.no_grad():
    norm.weight.copy_(1.0 + 0.2 * det((16,), seed=3))
W2D = 1.0 + 0.1 * det((4, 4), seed=4)


@torch.compile
def all_norms(x):
    a = norm(x)
    b = F.rms_norm(x, (16,), weight=norm.weight, eps=1e-6)
    c = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * norm.weight
    d = F.rms_norm(x.view(x.shape[0], 4, 4), (4, 4), weight=W2D)
    return a, b, c, d


a, b, c, d = all_norms(det((3, 16), seed=1, scale=2.0))
out = a
out_1 = bool(torch.allclose(a, b, atol=1e-5)) and bool(torch.allclose(a, c, atol=1e-5))
out_2 = d
a2, _, _, d2 = all_norms(det((5, 16), seed=2, scale=2.0))
out_3 = a2
out_4 = d2
