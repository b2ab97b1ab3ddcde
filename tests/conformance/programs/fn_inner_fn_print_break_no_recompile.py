# case: a nested function capturing a graph value is created on every call and used after a print() graph break; repeated calls must not recompile (fresh function objects are not guarded by identity)
# category: graph_break
# from: test/dynamo/test_functions.py::FunctionTests::test_no_recompile_inner_function
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def forward(inp):
    scaled = inp * 2

    def g(y):
        return scaled + y

    print("graph break")
    return g(torch.ones(1))


compiled = torch.compile(forward)
x = det((3,), seed=1)
out = compiled(x)
out_1 = compiled(x)
out_2 = compiled(det((3,), seed=2))
