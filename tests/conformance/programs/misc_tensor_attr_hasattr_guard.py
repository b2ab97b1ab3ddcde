# case: hasattr(x, "scale_hint") on an input tensor is guarded; a tensor carrying the Python attribute takes the other branch (recompile), a plain tensor afterwards reuses the first graph
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_tensor_hasattr
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile(fullgraph=True)
def f(x):
    if hasattr(x, "scale_hint"):
        return x * 3 + 1
    return x + 1


a = det((2, 3), seed=1)
out = f(a)
b = det((2, 3), seed=2)
b.scale_hint = 0.5
out_1 = f(b)
out_2 = f(det((2, 3), seed=3))
