# case: AdamW (weight_decay=0.1) on a compiled model for 3 steps; zero_grad() (set_to_none default) leaves .grad None before each backward; parameters after the steps
# category: training
# from: idiom: compiled model + torch.optim.AdamW with zero_grad()
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


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 5)
        self.head = nn.Linear(5, 2)

    def forward(self, x):
        return self.head(torch.sigmoid(self.body(x)))


model = Regressor()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 20, scale=0.6))
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.1)
x = det((6, 3), seed=1)
y = det((6, 2), seed=2)

grad_none = []
losses = []
for step in range(3):
    opt.zero_grad()
    grad_none.append(model.head.weight.grad is None)
    loss = F.smooth_l1_loss(cmodel(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())

out = grad_none
out_1 = losses
out_2 = model.body.weight.detach().clone()
out_3 = model.head.weight.detach().clone()
