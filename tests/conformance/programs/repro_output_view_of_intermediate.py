# case: outputs are an intermediate and a view of it; mutating the returned view after the call must show in the other output (aliasing kept), with and without requires_grad (2 graphs)
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_output_aliases_intermediate
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    mid = x.mul(2) + 1
    return mid.view(-1), mid


a, b = f(det((3, 4), seed=1))
a.mul_(2)
out = a
out_1 = b

xg = det((3, 4), seed=2).requires_grad_(True)
a2, b2 = f(xg)  # requires_grad input: recompiles
a2.mul_(2)
out_2 = a2
out_3 = b2
out_4 = [a2.requires_grad, b2.requires_grad]
