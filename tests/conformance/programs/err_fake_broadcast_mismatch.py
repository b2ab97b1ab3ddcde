# case: adding tensors of shapes (3,) and (4,) fails while Dynamo runs the op on fake tensors: the compiled call raises a compiler runtime-error class (with and without fullgraph); a later call with matching shapes works
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_fx_node_error_bad_user_code
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def combine_full(a, b):
    return a * 2 + b


def combine_loose(a, b):
    return a * 2 + b


a = det((3,), seed=1)
b_bad = det((4,), seed=2)
b_ok = det((3,), seed=3)
try:
    out = torch.compile(combine_full, fullgraph=True)(a, b_bad)
except Exception as e:
    out = "error: " + type(e).__name__
loose = torch.compile(combine_loose)
try:
    out_1 = loose(a, b_bad)
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = loose(a, b_ok)
