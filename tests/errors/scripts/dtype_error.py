import torch

a = torch.ones(2, 2)
b = torch.ones(2, 2, dtype=torch.float64)
out = torch.mm(a, b)
