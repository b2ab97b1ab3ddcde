import torch

# 4e14 bytes: more than any machine has, so the allocator refuses it everywhere.
x = torch.zeros(10**7, 10**7)
