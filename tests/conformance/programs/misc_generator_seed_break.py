# case: calling manual_seed on a torch.Generator argument inside the compiled function is not traceable (graph break); the arithmetic around it and the generator's new seed must match eager
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_torch_generator_manual_seed
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, gen):
    y = x * 2
    gen.manual_seed(1234)
    return y + 1, gen.initial_seed()


g = torch.Generator()
out = f(det((5,), seed=1), g)
out_1 = g.initial_seed()
