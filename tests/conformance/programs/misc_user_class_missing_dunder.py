# case: a user class defining only __add__: a + b is traced through the user __add__; a - b (no __sub__) under fullgraph must fail, the script records the error class
# category: error
# from: test/dynamo/test_misc.py::MiscTests::test_class_binop
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



class Vec:
    def __init__(self, t):
        self.t = t

    def __add__(self, other):
        return Vec(self.t + other.t * 2)


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


opt_add = torch.compile(add)
opt_sub = torch.compile(sub, fullgraph=True)
x = det((2, 3), seed=1)
y = det((2, 3), seed=2)
out = opt_add(Vec(x), Vec(y)).t
try:
    out_1 = opt_sub(Vec(x), Vec(y)).t
except Exception as e:
    out_1 = "error: " + type(e).__name__
