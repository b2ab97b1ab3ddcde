# case: an assert on a shape fact (x.dim() == want) fails inside a user context manager: the AssertionError reaches the caller and __exit__ sees it exactly once; the passing call returns normally
# category: exception
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_assert_failure_in_generic_ctx_mgr
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


seen = []


class Watch:
    def __enter__(self):
        seen.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        seen.append("exit:" + (exc_type.__name__ if exc_type is not None else "none"))
        return False


@torch.compile
def check(x, want):
    with Watch():
        y = x * 2
        assert x.dim() == want, "unexpected rank"
        return y + 1


x = det((2, 3), seed=1)
out = check(x, 2)
try:
    out_1 = check(x, 3)
except Exception as e:
    out_1 = "error: " + type(e).__name__
out_2 = list(seen)
