# Duck sizing (dynamic=True): dims of equal size at the first call share one symbol, so the
# entry guards `x.size()[1] == x.size()[0]`; sizes that later differ recompile, a size of 1 is
# specialized (the `2 <= x.size()[1]` range guard fails), and a comparison on a symbolic size
# is a guard of its own. dynamic_shapes_test.cpp checks the graph count and the reasons.
import torch


@torch.compile(dynamic=True)
def f(x, y):
    n = x.shape[0] + x.shape[1]
    if x.shape[0] > 4:
        return x * 2 + y.sum(0), n
    return x - y.sum(0), n


def show(r):
    print(r[0].shape, r[0].sum().item(), r[1])


show(f(torch.ones(3, 3), torch.ones(4, 3)))  # x's dims and y's dim 1 share a symbol
show(f(torch.ones(5, 3), torch.ones(4, 3)))  # x.size()[1] != x.size()[0]: recompile
show(f(torch.ones(6, 3), torch.ones(2, 3)))  # served by the second entry
show(f(torch.ones(6, 1), torch.ones(2, 1)))  # a size of 1 is specialized: recompile
show(f(torch.ones(4, 3), torch.ones(2, 3)))  # 4 > 4 is false: the second entry's 5 <= x.size()[0] fails
