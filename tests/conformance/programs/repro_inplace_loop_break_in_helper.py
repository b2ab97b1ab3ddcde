# case: in-place += on the input before, inside (a helper whose loop graph-breaks) and after a graph break; the caller's tensor must hold every update
# category: inplace
# from: test/dynamo/test_repros.py::ReproTests::test_while_loop_graph_break_inside_call_function
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def bump(x):
    for _ in range(3):
        x += 1
        torch._dynamo.graph_break()
    return x


def f(x):
    x += 2
    bump(x)
    x *= 3
    return x


x = det((4,), seed=1)
x_ref = x.clone()
res = torch.compile(f)(x)
out = res
out_1 = x  # mutated in place: (x + 5) * 3
out_2 = res is x
out_3 = (x_ref + 5) * 3
