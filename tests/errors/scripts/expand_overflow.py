import torch

# 2**33 * 2**31 elements: numel wraps to 0 in 64 bits.
b = torch.zeros(1).expand(2**33, 2**31).contiguous()
