# case: sorted() over a list of 0-d tensors needs tensor comparisons as keys: fullgraph=True raises, a plain compile graph-breaks and still returns the right order; sorting by int keys works under fullgraph
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_sort_with_nonconstant_keys
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def rank_full(vals):
    ordered = sorted(vals)
    return torch.stack(ordered) * 10


def rank_loose(vals):
    ordered = sorted(vals)
    return torch.stack(ordered) * 10


def rank_by_int_key(pairs):
    ordered = sorted(pairs, key=lambda p: p[0])
    return torch.cat([t for _, t in ordered])


vals = [det((), seed=s) for s in (1, 2, 3, 4)]
try:
    out = torch.compile(rank_full, fullgraph=True)(vals)
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = torch.compile(rank_loose)(vals)

pairs = [(3, det((2,), seed=5)), (1, det((2,), seed=6)), (2, det((2,), seed=7))]
out_2 = torch.compile(rank_by_int_key, fullgraph=True)(pairs)
