# difffuzz seed 43710 (also 46589, 46788): `t2 = x.flatten()` of a 1-d x is x itself in eager, and
# after `x.select(0, 0).add_(1)` the graph's output was the input's new value, handed back as a
# fresh tensor instead of the input: a later mutation of x did not show through the output
# (silently). An output that is an input's later value with no view op in between is the input.
import torch


def f_impl(x):
    t1 = x.select(0, 0)
    t2 = x.flatten()
    t1.add_(1)
    return {"k0": t2}


def g_impl(x):
    t2 = x.flatten()
    x.mul_(2)
    return t2


f = torch.compile(f_impl)
g = torch.compile(g_impl)
x = torch.sin(torch.arange(3, dtype=torch.float32) * 0.37 + 23)
r = f(x)
out = [r["k0"]]
r2 = f(x)
out_1 = [r2["k0"], x.clone()]
y = torch.cos(torch.arange(4, dtype=torch.float32))
r3 = g(y)
y.add_(10)
out_2 = [r3, y]
