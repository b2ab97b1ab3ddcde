# case: x.data.mul_(2) after sin(x) saved x for backward: the gradient uses the mutated data (cos(2x)) and the input is doubled, as in eager
# category: autograd
# from: test/dynamo/test_repros.py::ReproTests::test_data_attr_mutation_after_saved_for_bw
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f(x):
    out = x.sin()
    x.data.mul_(2)
    return out


x = det((4,), seed=1).requires_grad_(True)
r = torch.compile(f)(x)
r.sum().backward()
out = r
out_1 = x.detach().clone()
out_2 = x.grad
