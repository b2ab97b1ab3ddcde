# case: recompile_limit=1; helper g is compiled on its own first, then f (inlining g and h) compiles for n=0; n=1 hits the limit so f runs eagerly, but g still uses its own cached graph while h runs eagerly (is_compiling() markers show inp+7, then inp+3)
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_recompile_child_run_only
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def g(x):
    if torch.compiler.is_compiling():
        return x + 2
    return x


def h(x):
    if torch.compiler.is_compiling():
        return x + 4
    return x


def f(x, n):
    if torch.compiler.is_compiling():
        x = x + 1
    x = g(x)
    return h(x) + n


inp = det((3,), seed=1)
probe = det((3,), seed=2)
with torch._dynamo.config.patch(recompile_limit=1):
    g_res = torch.compile(g)(probe)  # g's own cache entry: probe + 2
    opt_f = torch.compile(f)
    r0 = opt_f(inp, 0)  # f compiled, g and h inlined: inp + 7
    r1 = opt_f(inp, 1)  # limit hit: f eager, g from its cache (+2), h eager: inp + 3

out = torch.stack([g_res - probe, r0 - inp, r1 - inp])
out_1 = r1
