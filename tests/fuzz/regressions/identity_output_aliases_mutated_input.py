# difffuzz seed 1080: simplify turned `x / 1.0` into x itself; the output then aliased the input
# that the graph mutates, and showed the mutation.
import torch


def f_impl(x):
    t3 = x / 1.0
    x.mul_(torch.tanh(x))
    return t3, x * 1


f = torch.compile(f_impl)
x = torch.sin(torch.arange(12, dtype=torch.float32)).reshape(4, 3)
out = f(x)
out_1 = x
