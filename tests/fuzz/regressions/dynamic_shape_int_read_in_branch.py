# difffuzz seed 13258: with dynamic=True, a shape's own trace read an int argument (n) only in the
# branch that shape takes; the per-shape code was reused for another n without checking it.
import torch


def det(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed).reshape(shape)


def f1_impl(x, y, z, n=1):
    t5 = y.std(dim=0, keepdim=True)
    if x.shape[0] >= 4:
        t5.abs_()
    else:
        y = y.mul(0.5).add(n)
    t7 = y.relu()
    t8 = x / (x.abs() + 1)
    t9 = torch.softmax(t7, dim=0)
    if t9.shape[0] % 2 == 0:
        t9 = torch.minimum(t9, z)
    parts13 = [t8, t9]
    t14 = sum(parts13)
    t16 = torch.max(t14, x)
    return t16, t7
f1 = torch.compile(f1_impl, dynamic=True)
x_7 = det((4, 5, 3, 6), 29)
y_8 = det((6,), 14)
z_9 = det((6,), 8)
out_7 = f1(x_7, y_8, z_9, 1)  # same shapes again
x_10 = det((3, 5, 3, 6), 33)
y_11 = det((6,), 36)
z_12 = det((6,), 19)
out_8 = f1(x_10, y_11, z_12, 1)  # another first dimension
out_9 = f1(x_10, y_11, z_12, 4)  # other int/bool arguments
