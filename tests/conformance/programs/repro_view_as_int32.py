# case: x.view(torch.int32) reinterprets float bits; floor division and modulo on the int32 view (negative values) follow torch semantics; a requires_grad input recompiles
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_view_dtype_overload
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
    bits = x.view(torch.int32)
    return bits, bits % 1000, bits // 7


x = det((6,), seed=1)
r = f(x)
out = r[0]
out_1 = r[1]
out_2 = r[2]
out_3 = str(r[0].dtype)
xg = det((6,), seed=2).requires_grad_(True)
rg = f(xg)
out_4 = rg[1]
out_5 = [rg[0].requires_grad, str(rg[2].dtype)]
