# case: a loop over a global dict where each lookup in a second global dict may raise KeyError (caught per iteration) under fullgraph=True; adding a key to the looked-up dict between calls must be seen (guard, recompile)
# category: guard
# from: test/dynamo/test_exceptions.py::ExceptionTests::test_block_stack_cleanup
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


factors = {"a": 3, "b": 4, "c": 5}
present = {"c": 2}


@torch.compile(fullgraph=True)
def f(x):
    for name, bias in factors.items():
        try:
            x = x * present[name]
        except KeyError:
            x = x + torch.sin(x) * bias
    return x


x = det((4,), seed=1)
out = f(x)
present["a"] = -1
out_1 = f(x)
