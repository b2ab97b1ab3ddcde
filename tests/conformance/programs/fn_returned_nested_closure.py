# case: the compiled fn computes a tensor, then returns a doubly nested closure capturing it; the returned function (reconstructed by Dynamo) is called later in eager code
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_complex_closure
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def build(y):
    s = torch.sin(y)

    def outer():
        def add_to(z):
            return s * 2 + z

        return add_to

    return outer()


fn = build(det((4,), seed=1))
out = fn(det((4,), seed=2))
out_1 = fn(det((4,), seed=3))
out_2 = fn.__name__
