# In-place updates through .t(), .reshape(-1) (a view of a contiguous tensor) and a select.
import torch


@torch.compile
def f(x, y, z):
    x.t().add_(torch.arange(3.0))
    y.reshape(-1)[2:5].fill_(7.0)
    z[1].sub_(1)
    return x.sum() + y.sum() + z.sum()


x = torch.zeros(3, 2)
y = torch.zeros(2, 4)
z = torch.ones(3, 2)
print(f(x, y, z))
print(x, y, z)
