# case: list += [tensor] on an argument list, then an explicit graph break, then append; the caller's list must be the same object and contain both new tensors
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_list_iadd_side_effect
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



@torch.compile
def f(a, b):
    a += [b * 2]
    torch._dynamo.graph_break()
    a.append(b + 1)
    return a


lst = [1, 2]
t = det((2, 2), seed=1)
res = f(lst, t)
out = len(lst)
out_1 = res is lst
out_2 = lst[2]
out_3 = lst[3]
out_4 = lst[:2]
