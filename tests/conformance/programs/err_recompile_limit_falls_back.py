# case: recompile_limit=2 with dynamic=False and an int argument: n=0 and n=1 compile, n=2 and n=3 hit the limit and run eagerly, n=1 again reuses its cache entry; every result matches eager
# category: recompile
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_recompile_limit_hit_message
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


torch._dynamo.config.recompile_limit = 2


@torch.compile(dynamic=False)
def shift(x, n):
    return x * n + n


x = det((3, 2), seed=1)
out = shift(x, 0)
out_1 = shift(x, 1)
out_2 = shift(x, 2)  # limit reached: eager
out_3 = shift(x, 3)  # limit reached: eager
out_4 = shift(x, 1)  # cached entry
