# In-place updates through views and aliased arguments: the reference applies them for real,
# so the inputs' values after the call are checked as well as the outputs.
import torch


@torch.compile
def f(x, y):
    x[:, 1:3].mul_(2)
    x[0].add_(x[1])
    o = torch.empty(x.shape[1])
    o.copy_(y)
    o -= x[1]
    y.add_(1)
    return x.sum(dim=1), o


a = torch.arange(12.0).reshape(3, 4)
b = torch.ones(4)
print(f(a, b), a, b)
print(f(b.reshape(1, 4).expand(3, 4).clone(), b), b)
