# case: recompile_limit=1 with fail_on_recompile_limit_hit=True: the first flag value compiles, the other flag value would need a recompile and raises FailOnRecompileLimitHit; the first flag still works afterwards
# category: error
# from: test/dynamo/test_recompile_ux.py::RecompileUxTests::test_fail_on_recompile_limit_hit
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, flag):
    if flag:
        return x * 2
    return x + 1


x = det((5,), seed=1)
with torch._dynamo.config.patch(recompile_limit=1, fail_on_recompile_limit_hit=True):
    out = f(x, True)
    try:
        out_1 = f(x, False)
    except Exception as e:
        out_1 = "error: " + type(e).__name__
    out_2 = f(x, True)
