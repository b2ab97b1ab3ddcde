# case: next() on list iterators with `except StopIteration` (fill value for the shorter list, break when the first list ends) under fullgraph=True; list arguments whose lengths change between calls give eager results
# category: exception
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_stop_iteration
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def interleave(xs, ys, fill):
    ix = iter(xs)
    iy = iter(ys)
    merged = []
    while True:
        try:
            a = next(ix)
        except StopIteration:
            break
        try:
            b = next(iy)
        except StopIteration:
            b = fill
        merged.append(a * b)
    return merged


@torch.compile(fullgraph=True)
def f(ts, ks):
    parts = interleave(ts, ks, 0.5)
    return torch.stack(parts).sum(0), len(parts)


ts = [det((2,), seed=s) for s in (1, 2, 3)]
out = f(ts, [2, 3])
out_1 = f(ts, [1, 2, 3, 4])
