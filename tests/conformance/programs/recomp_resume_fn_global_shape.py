# case: graph break between x.sin() and reading a tensor from a global dict; only the tensor after the break changes shape, so the first graph keeps hitting its cache while the resume function recompiles once (automatic dynamic) and then reuses it
# category: recompile
# from: test/dynamo/test_recompile_ux.py::RecompileLimitKwargTests::test_recompile_limit_resume_function_auto_dynamic
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

holder = {"t": det((4, 8, 2), seed=1)}


@torch.compile
def f(x):
    y = x.sin()
    torch._dynamo.graph_break()
    return y, holder["t"].cos() * 2


x = det((4, 8, 2), seed=2)
out = f(x)
holder["t"] = det((5, 8, 2), seed=3)
out_1 = f(x)  # first graph: cache hit; resume function: recompile
holder["t"] = det((7, 8, 2), seed=4)
out_2 = f(x)  # both reuse
