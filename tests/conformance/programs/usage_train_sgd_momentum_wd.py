# case: 4 training steps of a compiled MLP with an uncompiled SGD (momentum=0.9, weight_decay=0.01): losses, parameters and momentum buffer after the steps (one graph reused)
# category: training
# from: idiom: compiled model + eager torch.optim.SGD with momentum and weight decay
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = MLP()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 1, scale=0.5))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=0.01)
X = det((16, 4), seed=7)
Y = X.sum(dim=1, keepdim=True) * 0.5 + 0.1

losses = []
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(cmodel(X), Y)
    loss.backward()
    opt.step()
    losses.append(loss.item())

out = losses
out_1 = model.fc1.weight.detach().clone()
out_2 = model.fc2.bias.detach().clone()
out_3 = opt.state[model.fc2.weight]["momentum_buffer"].clone()
