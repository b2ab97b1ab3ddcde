# case: iterating the rows of an input tensor and mutating each row in place (add_, mul_) must mutate the caller's tensor; the returned last row must still alias the input (zeroing it zeroes x[-1])
# category: inplace
# from: test/dynamo/test_misc.py::MiscTests::test_tensor_iter
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(x):
    for row in x:
        row.add_(1.0)
        row.mul_(2.0)
    return row


x = det((5, 4), seed=1)
r = f(x)
out = r.clone()
out_1 = x.clone()
r.zero_()
out_2 = x.clone()
