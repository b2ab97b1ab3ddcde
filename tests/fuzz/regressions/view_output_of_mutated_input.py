# difffuzz seed 1067: a view of an input mutated through it (split()[0] *= c) was returned as a
# fresh tensor, not as a view of the input: later mutations of the input did not show in it.
import torch


def f_impl(x, y):
    t1 = x.split(3, dim=0)[0]
    t1 *= 0.75
    t2 = y.reshape(-1)
    return t2, x, t1


f = torch.compile(f_impl)
x = torch.sin(torch.arange(4, dtype=torch.float32))
y = torch.cos(torch.arange(4, dtype=torch.float32))
out = f(x, y)
out_1 = f(x, y)
