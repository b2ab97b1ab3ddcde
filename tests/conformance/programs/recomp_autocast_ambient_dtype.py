# case: torch.mm compiled with fullgraph, called outside autocast, inside torch.autocast("cpu", bfloat16), then outside again; the ambient autocast state is guarded: 2 graphs, output dtype float32 / bfloat16 / float32
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_ambient_autocast_recompile
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

W = det((8, 8), seed=1, scale=0.5)


@torch.compile(fullgraph=True)
def f(x):
    return torch.mm(x, W)


x = det((2, 8), seed=2)
r0 = f(x)
with torch.autocast("cpu", dtype=torch.bfloat16):
    r1 = f(x)
r2 = f(x)

out = (str(r0.dtype), str(r1.dtype), str(r2.dtype))
out_1 = r0
out_2 = r1.float()
out_3 = r2
