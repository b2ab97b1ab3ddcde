# case: compiled function reads an int and a tensor attribute of a global object; mutating the int attribute, replacing the tensor attribute and rebinding the global name between calls must all be reflected (int change recompiles, tensor swap reuses the graph)
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_globals
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Pair:
    def __init__(self, t, k):
        self.t = t
        self.k = k


PAIR = Pair(det((4,), seed=1), 2)


@torch.compile
def f(x):
    return x * PAIR.k + PAIR.t


x = det((4,), seed=2)
out = f(x)
PAIR.k = 3
out_1 = f(x)  # int attribute changed
PAIR.t = det((4,), seed=3)
out_2 = f(x)  # tensor attribute replaced (same shape/dtype)
PAIR = Pair(det((4,), seed=4), 3)
out_3 = f(x)  # global rebound to a new object
