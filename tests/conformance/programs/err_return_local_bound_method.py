# case: returning a bound method of an object created inside the compiled frame cannot be reconstructed: fullgraph=True raises; with a graph_break before the return the frame falls back and the returned method still works
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_reconstruction_failure_gb
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, t):
        return t * self.k


def make_full(x):
    s = Scaler(4)
    return x + 1, s.scale


def make_loose(x):
    s = Scaler(4)
    y = x + 1
    torch._dynamo.graph_break()
    return y, s.scale


x = det((3, 2), seed=5)
try:
    res = torch.compile(make_full, fullgraph=True)(x)
    out = res[1](res[0])
except Exception as e:
    out = "error: " + type(e).__name__
y, fn = torch.compile(make_loose)(x)
out_1 = y
out_2 = fn(y)
