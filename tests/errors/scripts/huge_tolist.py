import torch

# 2**31 Python objects from a broadcast view of one element.
v = torch.zeros(1).expand(2**31).tolist()
