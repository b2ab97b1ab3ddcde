# case: a list of tensors is summed with weights from enumerate; another list of the same length with different tensors reuses the graph, a longer list recompiles, and a list object appended to between calls must hit the entry for its current length
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_length_check_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(ts):
    acc = ts[0] * 0
    for i, t in enumerate(ts):
        acc = acc + (i + 1) * t
    return acc


a = det((3,), seed=1)
b = det((3,), seed=2)
c = det((3,), seed=3)
out = f([a, b])
out_1 = f([c, a])  # same length: cache hit
out_2 = f([a, b, c])  # length 3: recompile
lst = [b, c]
out_3 = f(lst)  # length 2 entry
lst.append(a)
out_4 = f(lst)  # same list object, now length 3
