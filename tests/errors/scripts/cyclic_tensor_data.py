import torch

# A list that contains itself: PyTorch stops at 128 dimensions.
a = []
a.append(a)
t = torch.tensor(a)
