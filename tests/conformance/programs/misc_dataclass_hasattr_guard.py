# case: dataclasses.fields() walk with getattr and in-place += into the first field (mutates the caller's tensor, output aliases it); adding attribute z flips hasattr (recompile), deleting it reuses the first graph
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_dataclass_fields
import dataclasses
import math
import typing

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@dataclasses.dataclass
class Pack:
    a: torch.Tensor
    b: typing.Optional[torch.Tensor] = None
    c: typing.Optional[torch.Tensor] = None


@torch.compile
def f(p):
    flds = dataclasses.fields(p)
    if hasattr(p, "z"):
        return p.a * -1
    total = getattr(p, flds[0].name)
    for fld in flds[1:]:
        v = getattr(p, fld.name)
        if v is not None:
            total += v
    return total


p = Pack(det((5,), seed=1), c=det((5,), seed=2))
r = f(p)
out = r.clone()
out_1 = r is p.a
p.z = True
out_2 = f(p)
del p.z
r3 = f(p)
out_3 = r3.clone()
out_4 = r3 is p.a
