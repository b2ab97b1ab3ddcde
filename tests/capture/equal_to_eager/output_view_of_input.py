# A returned view of an input aliases it: a later update through the output shows in the input.
import torch


@torch.compile
def f(x):
    return x[1], x.t()


x = torch.zeros(2, 3)
r, t = f(x)
r.add_(5)
t[0, 0] = 9.0
print(x)
