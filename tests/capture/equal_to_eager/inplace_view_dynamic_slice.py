# A slice whose size depends on the input's (dynamic after a recompile) updated in place.
import torch


@torch.compile
def f(x):
    x[: x.shape[0] // 2].mul_(3)
    return x * 1


for n in (4, 6, 8):
    x = torch.ones(n)
    print(f(x), x)
