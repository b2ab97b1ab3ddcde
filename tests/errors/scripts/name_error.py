import torch


@torch.compile
def f(x):
    return torch.cos(x) + offset


out = f(torch.ones(4))
