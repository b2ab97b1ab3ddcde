# case: index_put_ inside compiled code: accumulate=True with repeated indices into a histogram input (sums duplicates, returns the same tensor object), and a 2-D advanced-index overwrite with unique positions
# category: inplace
# from: idiom: index_put_ on an input
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def scatter_sum(hist, idx, vals):
    hist.index_put_((idx,), vals, accumulate=True)
    return hist


@torch.compile
def overwrite(t, rows, cols, v):
    t.index_put_((rows, cols), v)
    return t.sum()


hist = torch.zeros(6)
idx = torch.tensor([0, 2, 2, 5, 0, 2])
vals = det((6,), seed=1)
r = scatter_sum(hist, idx, vals)
out = hist.clone()
out_1 = r is hist
t = det((3, 4), seed=2)
out_2 = overwrite(t, torch.tensor([0, 2]), torch.tensor([1, 0]), torch.tensor([10.0, -10.0]))
out_3 = t.clone()
