# case: inputs that are nn.Parameter keep static shapes (force_parameter_static_shapes default): x @ W with Parameter x of 2, 5 and 7 rows recompiles for every new size (3 graphs), a repeated size hits the cache
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_dynamic_shape_parameter_recompile
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

W = nn.Parameter(det((3, 2), seed=1))


@torch.compile(fullgraph=True)
def f(x):
    return x @ W


params = [nn.Parameter(det((n, 3), seed=n)) for n in (2, 5, 7)]
results = [f(p).detach() for p in params]
results.append(f(params[2]).detach())  # repeated size: cache hit

out = results[0]
out_1 = results[1]
out_2 = results[2]
out_3 = results[3]
