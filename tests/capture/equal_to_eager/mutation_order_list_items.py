# A tensor read through a list, updated in place after its value was used.
import torch


@torch.compile
def f(xs):
    acc = xs[0] + xs[1]
    xs[0].add_(1)
    return acc


t = torch.ones(1)
print(f([t, t]), t)
u = torch.ones(1)
print(f([u, torch.ones(1)]), u)
