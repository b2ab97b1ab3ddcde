# case: string argument selects the activation in Python control flow; "relu", "tanh" and "other" each compile (equality guard on the string, 3 graphs), an equal string built at runtime hits the "relu" entry
# category: guard
# from: test/dynamo/test_guard_manager.py::GuardManagerTests::test_equals_guard
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x, mode):
    if mode == "relu":
        return torch.relu(x) * 2
    elif mode == "tanh":
        return torch.tanh(x) * 2
    return x * 2


x = det((4, 4), seed=1)
name = "".join(["re", "lu"])  # equal to "relu", built at runtime
out = f(x, "relu")
out_1 = f(x, "tanh")
out_2 = f(x, "relu")  # cache hit
out_3 = f(x, "other")
out_4 = f(x, name)  # equal string: cache hit
