# The same tensor passed twice: updates through one argument are seen through the other.
import torch


@torch.compile
def f(a, b):
    a.add_(1)
    return a + b


x = torch.zeros(2)
print(f(x, x), x)
y = torch.zeros(2)
z = torch.zeros(2)
print(f(y, z), y, z)
print(f(x, x), x)
