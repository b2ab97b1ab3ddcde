# case: argument is a tuple whose second item is a tuple, then a tensor, then a tuple again: structure guard fails and recompiles once; the third call reuses the first graph
# category: recompile
# from: test/dynamo/test_repros.py::ReproTests::test_guard_fail_nested_tuple
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(args):
    first = args[0] * 2
    second = args[1]
    if isinstance(second, tuple):
        return first + second[0] * second[1]
    return first - second


a = det((4,), seed=1)
out = f((a, (det((4,), seed=2), det((4,), seed=3))))
out_1 = f((a, det((4,), seed=4)))
out_2 = f((a, (det((4,), seed=5), det((4,), seed=6))))
