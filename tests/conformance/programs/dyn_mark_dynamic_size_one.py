# case: mark_dynamic on a dimension of size 1 is allowed (0/1 specialization, no error) and compiles a static graph; marked tensors of size 5 and 7 then use one dynamic graph (2 graphs)
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_mark_01_dynamic
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def f(x):
    return x * 2 + x.shape[0]


x1 = det((1,), seed=1)
torch._dynamo.mark_dynamic(x1, 0)
out = f(x1)

x5 = det((5,), seed=2)
torch._dynamo.mark_dynamic(x5, 0)
out_1 = f(x5)

x7 = det((7,), seed=3)
torch._dynamo.mark_dynamic(x7, 0)
out_2 = f(x7)
