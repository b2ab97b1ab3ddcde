# An argument that is a view of another argument, with an in-place update.
import torch


@torch.compile
def g(a, b):
    a.add_(1)
    return a.sum() + b.sum()


y = torch.zeros(2, 2)
print(g(y, y[0]), y)
print(g(y, torch.zeros(2)), y)
