# case: recompile_limit=2, dynamic=False; torch.compiler.is_compiling() adds a marker only inside compiled code, so the outputs show n=0,1 compiled, n=2,3 run eagerly after the limit (inner helper not compiled either), and n=0,1 later still hit their cached graphs
# category: recompile
# from: test/dynamo/test_recompiles.py::RecompileTests::test_run_mode_after_cache_limit_hit
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def inner(x, n):
    x = x + n
    if torch.compiler.is_compiling():
        x = x + 2
    return x


def outer(x, n):
    x = x + n
    if torch.compiler.is_compiling():
        x = x + 1
    return inner(x, n)


opt = torch.compile(outer, dynamic=False)
base = det((3,), seed=1)

with torch._dynamo.config.patch(recompile_limit=2):
    r0 = opt(base, 0)  # compiled: base + 0 + 3
    r1 = opt(base, 1)  # compiled: base + 2 + 3
    r2 = opt(base, 2)  # limit hit, eager: base + 4
    r3 = opt(base, 3)  # eager: base + 6
    r4 = opt(base, 0)  # cached graph: base + 3
    r5 = opt(base, 1)  # cached graph: base + 5

out = torch.stack([r0, r1, r2, r3, r4, r5]) - base
out_1 = r2
