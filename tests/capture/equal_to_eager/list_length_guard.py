# A list argument whose length changes between calls.
import torch


@torch.compile
def f(xs):
    return sum(xs)


t = torch.ones(2)
print(f([t] * 3))
print(f([t] * 5))
print(f([t, t * 2]))
