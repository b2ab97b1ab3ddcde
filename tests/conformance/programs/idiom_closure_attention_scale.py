# case: attention-score functions made by a factory closing over a scale; two closures share one code object (the second recompiles on its cell value), and rebinding the first closure's cell via nonlocal recompiles again
# category: guard
# from: idiom: attention score function closing over a scale factor
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_scorer(scale):
    def set_scale(value):
        nonlocal scale
        scale = value

    def score(q, k):
        return F.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1)

    return score, set_scale


score_a, set_a = make_scorer(0.5)
score_b, _ = make_scorer(0.25)
ca = torch.compile(score_a)
cb = torch.compile(score_b)

q = det((2, 4, 8), seed=1)
k = det((2, 4, 8), seed=2)
out = ca(q, k)
out_1 = cb(q, k)
set_a(0.125)
out_2 = ca(q, k)
out_3 = bool(torch.allclose(out_1, out_2))
