# difffuzz seed 1574: a dynamic entry reused the code of a contiguous input for a permuted one
# of the same sizes (the per-shape key held sizes only); the view in nn.Linear then failed.
import torch
import torch.nn as nn


def det(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + seed).reshape(shape)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)
        with torch.no_grad():
            self.lin.weight.copy_(det((6, 6), 3) * 0.5)
            self.lin.bias.copy_(det((6,), 14) * 0.1)

    def forward(self, x):
        return torch.cat([self.lin(x), x], -2).tanh()


cm = torch.compile(M())
out = cm(det((3, 4, 6), 14))
out_1 = cm(det((2, 4, 6), 36))
out_3 = cm(det((2, 4, 6), 37))  # the same sizes again: kept as this shape's code
out_2 = cm(det((6, 4, 2), 0).permute(2, 1, 0))  # same sizes, other strides
