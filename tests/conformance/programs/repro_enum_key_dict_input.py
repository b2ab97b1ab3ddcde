# case: module forward indexes a dict input whose keys are Enum members; called twice with new values of the same shapes (one graph)
# category: module
# from: test/dynamo/test_repros.py::ReproTests::test_tuple_enum_as_key_dict
import enum
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Field(enum.Enum):
    A = "a"
    B = "b"


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, d):
        return self.lin(d[Field.A]) - d[Field.B].sum()


m = Head()
with torch.no_grad():
    m.lin.weight.copy_(det((2, 3), seed=5, scale=0.5))
    m.lin.bias.copy_(det((2,), seed=6, scale=0.5))

cm = torch.compile(m)
with torch.no_grad():
    out = cm({Field.A: det((4, 3), seed=1), Field.B: det((2,), seed=2)})
    out_1 = cm({Field.A: det((4, 3), seed=3), Field.B: det((2,), seed=4)})
