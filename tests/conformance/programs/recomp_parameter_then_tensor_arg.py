# case: second argument is an nn.Parameter on the first call and a plain tensor of the same shape on the second; the type guard (Parameter vs Tensor) recompiles, a new Parameter reuses the first graph; requires_grad of the results follows the argument type
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_mismatched_tensor_type
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(a, b):
    return a + b * 2


a = det((3, 4), seed=1)
bp = nn.Parameter(det((3, 4), seed=2))
bt = det((3, 4), seed=3)

r0 = f(a, bp)  # Parameter: graph 1
r1 = f(a, bt)  # plain tensor: recompile
r2 = f(a, nn.Parameter(det((3, 4), seed=4)))  # Parameter again: graph 1

out = (r0.requires_grad, r1.requires_grad, r2.requires_grad)
out_1 = r0.detach()
out_2 = r1
out_3 = r2.detach()
