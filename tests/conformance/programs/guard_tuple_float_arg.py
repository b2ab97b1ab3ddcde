# case: tuple argument (float, int) where only element 0 is read, plus an object with an int and a tensor attribute; a different float in element 0 fails its guard, a change only in the unread element 1 must not change the result
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_diff_guard_manager
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Bar:
    def __init__(self):
        self.x = 4
        self.y = det((4,), seed=1)


@torch.compile(fullgraph=True)
def f(x, foo, bar):
    return x + foo[0] + bar.x * bar.y


bar = Bar()
x = det((4,), seed=2)
out = f(x, (12.0, 13), bar)
out_1 = f(x, (10.0, 11), bar)  # element 0 changed
out_2 = f(x, (10.0, 99), bar)  # only the unread element changed
bar.y = det((4,), seed=3)
out_3 = f(x, (10.0, 11), bar)  # new tensor attribute with the same metadata: new values used
