# Softmax over the rows of a 4096 x 4096 matrix: one kernel (max, sum of exp, normalize).
import torch
import torch.nn.functional as F


@torch.compile
def softmax(x):
    return F.softmax(x, dim=-1)


x = torch.randn(4096, 4096)
result = softmax(x)
