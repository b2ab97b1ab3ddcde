# case: a closure two calls deep does nonlocal float += 1 and in-place tensor += 10 on captured cells; three calls of the compiled outer function must each see the updated cells (the changing float cell may force recompiles)
# category: recompile
# from: test/dynamo/test_misc.py::MiscTests::test_closure_out_of_scope_cell_with_mutation
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def build():
    scale = 0.5
    acc = det((3, 3), seed=1)

    def direct():
        def inner():
            nonlocal scale, acc
            y = acc + 1
            scale += 1
            acc += 10
            return scale, acc.clone(), y + acc * scale

        return inner()

    def indirect():
        return direct()

    def peek():
        return scale, acc

    return indirect, peek


indirect, peek = build()
f = torch.compile(indirect, fullgraph=True)
out = f()
out_1 = f()
out_2 = f()
out_3 = peek()[0]
out_4 = peek()[1]
