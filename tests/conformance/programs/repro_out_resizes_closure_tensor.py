# case: an empty tensor held in a closure cell is resized by torch.sigmoid(..., out=buf) inside a nested function; size and values after the write must match eager
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_out_root_cell_shape_change
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
    buf = torch.empty(0)

    def run():
        torch.sigmoid(x, out=buf)
        return buf.size()

    size = run()
    return buf * 2, size


r, s = f(det((3, 5), seed=1))
out = r
out_1 = list(s)
