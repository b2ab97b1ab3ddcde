import torch

x = torch.zeros(100000, 100000)
