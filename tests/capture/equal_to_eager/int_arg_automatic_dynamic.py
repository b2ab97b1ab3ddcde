# An int argument whose value changes is a symbol from the second compile on (automatic
# dynamic): scaling by it needs no recompile, using it as a dim specializes it again
# (`d == 1` is a shape guard). dynamic_shapes_test.cpp checks the counts.
import torch


@torch.compile
def f(x, n):
    return x * n + n


@torch.compile
def g(x, d):
    return x.sum(d) * 2


x = torch.arange(6.0).reshape(2, 3)
for n in (2, 3, 4, 5):
    print(f(x, n))
for d in (0, 1, 1):
    print(g(x, d))
