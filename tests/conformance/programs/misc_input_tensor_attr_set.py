# case: fullgraph function sets a Python attribute on its input tensor and on the tensor it returns; both attributes must exist after the call with the values of each call (the int argument change recompiles)
# category: python
# from: test/dynamo/test_misc.py::MiscTests::test_input_tensor_custom_attr_mutation
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile(fullgraph=True)
def f(x, tag):
    x.tag_value = tag
    y = x + 1
    y.doubled = tag * 2
    return y


x = det((4,), seed=1)
r = f(x, 7)
out = r
out_1 = x.tag_value
out_2 = r.doubled
r2 = f(x, 9)
out_3 = x.tag_value
out_4 = r2.doubled
