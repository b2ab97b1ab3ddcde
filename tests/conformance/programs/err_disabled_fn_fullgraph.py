# case: calling a torch.compiler.disable'd function passed as an argument: fullgraph=True raises before anything runs (its side effect does not happen), a plain compile graph-breaks around the call and gives eager results
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_disable_message
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


hits = []


@torch.compiler.disable
def opaque(t):
    hits.append(t.shape[0])
    return t * 2 + 1


def apply_full(fn, x):
    return fn(x).sum(dim=-1) + x.mean()


def apply_loose(fn, x):
    return fn(x).sum(dim=-1) + x.mean()


x = det((4, 3), seed=2)
try:
    out = torch.compile(apply_full, fullgraph=True)(opaque, x)
except Exception as e:
    out = "error: " + type(e).__name__
out_1 = len(hits)
loose = torch.compile(apply_loose)
out_2 = loose(opaque, x)
out_3 = loose(opaque, det((4, 3), seed=3))
out_4 = list(hits)
