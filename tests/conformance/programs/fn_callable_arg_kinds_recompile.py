# case: callable(arg) on a plain instance, an instance with __call__, a list and a builtin picks the branch; each new argument kind recompiles, results must match eager
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_callable_class
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Invocable:
    def __call__(self):
        return 1


class Inert:
    pass


@torch.compile
def f(x, arg):
    if callable(arg):
        return x * 2
    return x + 1


x = det((4,), seed=1)
out = f(x, Inert())
out_1 = f(x, Invocable())
out_2 = f(x, [1, 2, 3])
out_3 = f(x, len)
