# case: without fullgraph, `if h.sum() > 0` graph-breaks; locals computed before the break (h, scale) stay live and both branches give eager results (second call takes the other branch, same shapes)
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_data_dependent_branching_gb
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def project(x, w):
    h = x @ w
    scale = h.abs().mean()
    if h.sum() > 0:
        y = h * scale
    else:
        y = h / (scale + 1)
    return y + x.sum(dim=1, keepdim=True)


x = det((4, 3), seed=1)
w = det((3, 3), seed=2)
out = project(x, w)
out_1 = project(-x, w)  # h flips sign, so the other branch runs
