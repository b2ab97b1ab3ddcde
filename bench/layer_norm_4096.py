# layer_norm over the rows of a 4096 x 4096 matrix with weight and bias: one kernel.
import torch
import torch.nn.functional as F


@torch.compile
def layer_norm(x, w, b):
    return F.layer_norm(x, (4096,), w, b)


x = torch.randn(4096, 4096)
w = torch.randn(4096)
b = torch.randn(4096)
result = layer_norm(x, w, b)
