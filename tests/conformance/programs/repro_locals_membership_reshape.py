# case: 'name' in locals() decides whether to reshape back; a 3-d input takes the branch, a 2-d input recompiles (rank guard) and skips it
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_locals_traced_correctly_under_compile
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    if x.dim() > 2:
        batch, seq, hidden = x.shape
        x = x.reshape(-1, hidden)
    x = torch.tanh(x) + 1
    if "batch" in locals() and "seq" in locals():
        x = x.reshape(batch, seq, -1)
    return x


cf = torch.compile(f)
out = cf(det((2, 3, 4), seed=1))
out_1 = cf(det((3, 4), seed=2))
out_2 = [list(out.shape), list(out_1.shape)]
