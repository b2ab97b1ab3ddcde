# difffuzz seed 1081: after a .tolist() break the resume function returned, or summed, the list
# it received as the constant of its first call.
import torch


@torch.compile
def f(y):
    vals = (y * 2).tolist()
    return vals


@torch.compile
def g(y):
    vals = y.tolist()
    s = sum(vals) / len(vals)
    m = max(vals)
    return y * s, m, vals[0] + 1


out = f(torch.ones(2))
out_1 = f(torch.zeros(2))
out_2 = g(torch.tensor([2.0, 0.0]))
out_3 = g(torch.tensor([2.0, 5.0]))
out_4 = g(torch.tensor([2.0, 5.0, 1.0]))
