# case: outer nn.Module holds an inner module whose forward adds an instance int attribute and a class attribute; changing the class attribute Inner.c between calls must recompile and give the new sum
# category: guard
# from: test/dynamo/test_guard_manager.py::TagSafetyChecks::test_nn_module_tag_safe
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Inner(nn.Module):
    c = 2

    def __init__(self):
        super().__init__()
        self.a = 4

    def forward(self, x):
        return x + self.a + self.c


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x) * 2


outer = Outer()


@torch.compile
def f(x):
    return x + outer(x)


x = det((4, 4), seed=1)
out = f(x)
out_1 = f(x)  # cache hit
Inner.c = 7
out_2 = f(x)  # class attribute changed: recompile
outer.inner.a = 1
out_3 = f(x)  # instance attribute changed: recompile
