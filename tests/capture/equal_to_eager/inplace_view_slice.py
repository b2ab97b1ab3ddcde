# An in-place op on a slice of an input updates the input (functionalization through a view).
import torch


@torch.compile
def f(x):
    v = x[:, 1:3]
    v.mul_(2)
    return x.sum(0)


x = torch.ones(3, 4)
print(f(x))
print(x)
