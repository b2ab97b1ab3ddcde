# case: `a += 1` on a nonlocal tensor (in place) that another cell b aliases, then a graph break, inside a closure called by the compiled closure; b must see the update and c's rebinding must persist across two calls
# category: inplace
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_side_effects_cells
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_stepper():
    a = torch.zeros(3)
    b = a
    c = torch.zeros(3) + 4

    def bump_a():
        nonlocal a
        a += 1
        torch._dynamo.graph_break()
        return a + c

    def step():
        nonlocal c
        c = c * 2
        return bump_a() + b

    def snapshot():
        return a.clone(), b.clone(), c.clone()

    return step, snapshot


step, snapshot = make_stepper()
cstep = torch.compile(step)
out = cstep()
out_1 = snapshot()
out_2 = cstep()
out_3 = snapshot()
