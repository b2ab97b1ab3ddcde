# case: torch._check on x.shape[0] > 3 with a constant message under fullgraph: passes for 5 rows; for 3 rows (recompile) the check fails and the script records the error class
# category: error
# from: test/dynamo/test_misc.py::MiscTests::test_check_raises_at_runtime_when_predicate_false_constant_and_message_has_no_closure
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    torch._check(x.shape[0] > 3, lambda: "need more than three rows")
    return x * 2 + 1


out = f(det((5, 2), seed=1))
try:
    out_1 = f(det((3, 2), seed=2))
except Exception as e:
    out_1 = "error: " + type(e).__name__
