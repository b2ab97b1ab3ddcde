# case: dynamic=True, fullgraph: torch.amin(x, dim=dim, keepdim=True) with an int dim argument; dim must be concrete so dim=2 and dim=1 are separate graphs, and a new tensor size with dim=2 reuses the dynamic-shape graph for dim 2
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_argmin_coerces_symint_to_intlist_spec
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(dynamic=True, fullgraph=True)
def f(x, dim):
    return torch.amin(x, dim=dim, keepdim=True)


x = det((4, 4, 4), seed=1)
out = f(x, 2)
out_1 = f(x, 1)
out_2 = f(x, 1)
out_3 = f(det((3, 5, 6), seed=2), 2)
