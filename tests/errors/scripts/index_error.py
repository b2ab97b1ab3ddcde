import torch

x = torch.arange(6)
y = x[10]
