# case: [[None] * 3] * 3 makes three references to one inner list; writes through grid[0] must be visible through grid[1] and grid[2] inside the compiled function (list aliasing)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_variable_tracker_recursively_contains
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
    grid = [[None] * 3] * 3
    for i in range(3):
        if i == 0:
            grid[0][i] = x
        else:
            grid[0][i] = grid[0][i - 1] * 2 + 1
    return grid[2][2], grid[1][0] + 0, grid[0] is grid[2]


out = f(det((4,), seed=1))
