# case: a function returning None writes a nonlocal after calling a torch._dynamo.disable'd helper (graph break there); the nonlocal must hold the value computed from both graphs
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_cell_output2
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch._dynamo.disable
def opaque(a, b):
    return a * b - 1


def run():
    result = None

    def fn(a, b):
        nonlocal result
        c = a * 2
        d = opaque(a, b)
        result = a + b * 10 + c + d

    compiled = torch.compile(fn)
    ret = compiled(det((3,), seed=1), det((3,), seed=2))
    return ret is None, result


out, out_1 = run()
