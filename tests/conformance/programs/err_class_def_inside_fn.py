# case: a class statement inside the compiled function (LOAD_BUILD_CLASS): fullgraph=True raises; without fullgraph it graph-breaks at the class body and the instance built from it is used correctly on two calls
# category: error
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_load_build_class
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def build_full(x):
    class Doubler:
        factor = 2

        def apply(self, t):
            return t * self.factor

    return Doubler().apply(x) + 1


def build_loose(x):
    y = x.relu()

    class Shifter:
        offset = 5

        def apply(self, t):
            return t + self.offset

    return Shifter().apply(y) * 3


x = det((3, 4), seed=1)
try:
    out = torch.compile(build_full, fullgraph=True)(x)
except Exception as e:
    out = "error: " + type(e).__name__
loose = torch.compile(build_loose)
out_1 = loose(x)
out_2 = loose(det((3, 4), seed=2))
