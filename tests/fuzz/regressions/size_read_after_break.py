# difffuzz seed 1046: a size read from a tensor that never entered the graph, printed after a
# graph break, was the first call's (no guard on the tensor).
import torch


def f_impl(x):
    t1 = x * 2
    if x.sum() > -100:
        print("rows", t1.shape[0])
    return t1


f = torch.compile(f_impl)
out = f(torch.ones(3))
out_1 = f(torch.ones(1))
out_2 = f(torch.ones(4))
