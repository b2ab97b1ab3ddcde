# difffuzz seed 10657: an in-place update through a view, then of the whole tensor, on a
# permuted input: the output was rebuilt as a view of the input through the flattened form
# the first update's scatter used, which the permuted input cannot take (a RuntimeError).
# Also: x.is_contiguous() was True for every tensor while capturing.
import torch


@torch.compile
def f(x):
    x[:, :1].add_(0.5)
    x.mul_(torch.tanh(x))
    return x.view(-1) if x.is_contiguous() else x.reshape(-1)


a = torch.sin(torch.arange(20, dtype=torch.float32)).reshape(4, 5)
b = torch.sin(torch.arange(20, dtype=torch.float32)).reshape(4, 5).permute(1, 0)
out = f(a)
out_1 = f(b)
out_2 = [a, b]
