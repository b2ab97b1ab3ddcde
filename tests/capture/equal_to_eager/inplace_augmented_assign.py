# `x += y` on an argument updates the caller's tensor.
import torch


@torch.compile
def f(x, y):
    x += y
    x *= 2
    return x.sum()


a = torch.ones(3)
print(f(a, torch.arange(3.0)), a)
