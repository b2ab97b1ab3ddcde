# case: a compiled factory builds two nested closure cells holding tensors and returns a stepper that does nonlocal v += k (in place) on both; compiling the stepper and calling it three times must advance the cells each time
# category: inplace
# from: test/dynamo/test_misc.py::MiscTests::test_nested_closure_mutation
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make():
    v1 = det((4,), seed=1)

    def mid():
        v2 = det((4,), seed=2)

        def step():
            nonlocal v1, v2
            v1 += 1
            v2 += 2
            return v1 + v2

        return step

    s = mid()
    s()
    s()
    return s


step = torch.compile(make)()
step_c = torch.compile(step)
out = step_c()
out_1 = step_c()
out_2 = step_c()
out_3 = step()
