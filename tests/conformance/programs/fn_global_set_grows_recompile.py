# case: len() and membership of a module-level set are baked in as constants; adding an element between calls must recompile (call 2), call 3 reuses the new graph
# category: guard
# from: test/dynamo/test_functions.py::FunctionTests::test_constant_set
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


TAGS = {"a", "b"}


@torch.compile
def f(x):
    return torch.cos(x) * len(TAGS) + ("c" in TAGS)


x = det((4,), seed=1)
out = f(x)
TAGS.add("c")
out_1 = f(x)
out_2 = f(x)
