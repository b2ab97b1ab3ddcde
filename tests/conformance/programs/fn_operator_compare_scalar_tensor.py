# case: operator.lt/le/gt/ge/ne/eq/is_/is_not with a Python float on the left and a tensor on the right, under fullgraph=True; comparisons give bool tensors, is_/is_not give Python bools
# category: python
# from: test/dynamo/test_functions.py::FunctionTests::test_compare_constant_and_tensor
import math
import operator

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f(x):
    return (
        operator.lt(-0.5, x),
        operator.le(-0.5, x),
        operator.gt(-0.5, x),
        operator.ge(0.25, x),
        operator.ne(0.0, x),
        operator.eq(-0.5, x),
        operator.is_(-0.5, x),
        operator.is_not(-0.5, x),
    )


x = torch.tensor([-1.0, -0.5, 0.0, 0.25, 1.0])
out = f(x)
