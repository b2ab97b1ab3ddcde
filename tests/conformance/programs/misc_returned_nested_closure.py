# case: a compiled function returns an inner closure over its inputs and intermediates (with defaults and a nonlocal write); the closure is compiled and called, and the nonlocal it writes is visible outside
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_return_nested_function
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



def run():
    captured = None

    def outer(a, b):
        nonlocal captured
        c = a + b
        d = a + 1.0

        def inner(f=7, g=9.0):
            nonlocal captured
            captured = a + b * 10
            return c * f - d * g

        return inner

    opt_outer = torch.compile(outer)
    inner = opt_outer(det((4,), seed=1), det((4,), seed=2))
    opt_inner = torch.compile(inner)
    r1 = opt_inner(1.5)
    r2 = opt_inner(2.5, 3.0)
    return r1, r2, captured


out, out_1, out_2 = run()
