# case: the same two ints passed as a torch.Size, a tuple and a list are unpacked inside; each container type is guarded separately (3 graphs), all give the same values
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_size_input
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(x, s):
    a, b = s
    return x + (a - b)


v = det((3, 5), seed=1)
out = f(v, v.size())
out_1 = f(v, (3, 5))
out_2 = f(v, [3, 5])
