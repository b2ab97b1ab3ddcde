import torch

a = torch.ones(32, 100)
b = torch.ones(200, 10)
out = a @ b
