# An item popped from a list argument (and a dict argument) feeds the graph: it is read where
# it was when the call started, and calls with other values of the same shape reuse the graph.
import enum

import torch


class Field(enum.Enum):
    A = "a"
    B = "b"


@torch.compile
def push_pop(stack, x):
    top = stack.pop()
    stack.append(top * x)
    return len(stack), sum(stack)


@torch.compile
def by_enum(d):
    return d[Field.A] - d[Field.B].sum()


for seed in range(3):
    s = [torch.full((2,), float(seed)), torch.full((2,), seed + 1.0)]
    print(push_pop(s, torch.ones(2) * 3), s)
    print(by_enum({Field.A: torch.full((2,), float(seed)), Field.B: torch.ones(3) * seed}))
