# case: torch._dynamo.graph_break(msg=...) under fullgraph=True raises a compiler error class; the same code without fullgraph splits into two graphs and normalizes correctly
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_dynamo_graph_break_fn_with_msg
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def staged_full(x):
    a = x.exp()
    torch._dynamo.graph_break(msg="normalize in a second graph")
    return a / a.sum()


def staged_loose(x):
    a = x.exp()
    torch._dynamo.graph_break(msg="normalize in a second graph")
    return a / a.sum()


x = det((2, 6), seed=4)
try:
    out = torch.compile(staged_full, fullgraph=True)(x)
except Exception as e:
    out = "error: " + type(e).__name__
loose = torch.compile(staged_loose)
out_1 = loose(x)
out_2 = loose(x * 0.5)
