# case: default recompile limit (8): x + y called with 10 different dtypes; each dtype recompiles until 8 entries exist, the 9th and 10th dtypes run eagerly (is_compiling() is False there), a dtype seen before still uses its graph
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileLimitKwargTests::test_recompile_limit_none_uses_global
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, y):
    return x + y, torch.compiler.is_compiling()


dtypes = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int32,
    torch.int64,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
    torch.float64,
]

flags = []
names = []
values = []
for dt in dtypes:
    x = torch.arange(3).to(dt)
    y = torch.full((3,), 2).to(dt)
    r, compiled = f(x, y)
    flags.append(compiled)
    names.append(str(r.dtype))
    values.append(r.to(torch.float32))

out = flags
out_1 = names
out_2 = values
