# case: collections.deque built inside the compiled fn holding tensors and strings: append/appendleft/extend/pop/popleft/extendleft/__setitem__; returns the final contents as a list, no graph break expected
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_deque
import collections
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    d = collections.deque([a, b])
    d.append(a + 1)
    d.appendleft("head")
    d.extend([b * 2, "tail"])
    last = d.pop()
    first = d.popleft()
    d.extendleft([a - b])
    d[1] = "mid"
    return list(d), last, first, len(d)


a = det((2, 3), seed=1)
b = det((2, 3), seed=2)
out = f(a, b)
