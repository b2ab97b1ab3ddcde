# A graph with a product the planted pass rewrites: x * 3 + 1, then a reduction.
import torch


@torch.compile
def f(x, y):
    return (x * 3 + 1).relu() + y.sum()


out = f(torch.arange(6.0).reshape(2, 3) - 2, torch.ones(4))
out_1 = f(torch.arange(6.0).reshape(2, 3), torch.ones(4) * 2)
print(out, out_1)
