# difffuzz seed 1259: with dynamic=True, a graph whose only use of y is y.shape[0] kept the
# kernels of the first shape it saw twice (the per-shape key held graph inputs only).
import torch


@torch.compile(dynamic=True)
def f(y):
    return torch.zeros(y.shape[0], 1) + 1


out = f(torch.ones(5))
out_1 = f(torch.ones(5))
out_2 = f(torch.ones(6))
out_3 = f(torch.ones(7))
