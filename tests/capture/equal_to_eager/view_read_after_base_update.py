# A view taken before its base is updated sees the update; a reshape copy of a non-contiguous
# tensor does not.
import torch


@torch.compile
def f(x):
    row = x[0]
    flat = x.t().reshape(-1)
    x.add_(10)
    return row * 1, flat * 1


x = torch.arange(6.0).reshape(2, 3)
a, b = f(x)
print(a, b, x)
