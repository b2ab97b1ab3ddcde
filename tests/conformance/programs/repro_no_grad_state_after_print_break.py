# case: print() inside a torch.no_grad block breaks the graph; the resumed code must still run under no_grad, and code after the block with grad enabled
# category: graph_break
# from: test/dynamo/test_repros.py::ReproTests::test_grad_mode_carrying_correct_state_after_graph_break
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    with torch.no_grad():
        y = x * 3
        print("graph break inside no_grad")
        z = x + 2
    w = z * x
    return y, z, w


x = det((3,), seed=1).requires_grad_(True)
y, z, w = f(x)
out = y
out_1 = z
out_2 = w
out_3 = [y.requires_grad, z.requires_grad, w.requires_grad]
