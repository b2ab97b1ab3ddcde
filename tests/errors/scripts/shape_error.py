import torch

x = torch.ones(3, 4)
y = torch.ones(5)
out = x * y
