import torch

# 2**62 * 4 elements of 8 bytes: the byte count wraps to 0 in 64 bits.
a = torch.zeros(2**62, 4, dtype=torch.int64)
