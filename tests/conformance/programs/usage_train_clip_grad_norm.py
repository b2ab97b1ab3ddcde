# case: training loop with a compiled model, clip_grad_norm_(max_norm=0.5) between backward and SGD step: returned total norms, norms after clipping, parameters after 3 steps
# category: training
# from: idiom: torch.nn.utils.clip_grad_norm_ with a compiled model
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

model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 30, scale=0.7))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = det((10, 4), seed=3, scale=2.0)
y = det((10, 2), seed=4, scale=3.0)

norms = []
clipped = []
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(cmodel(x), y)
    loss.backward()
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    norms.append(total.item())
    clipped.append(torch.stack([p.grad.norm() for p in model.parameters()]).norm().item())
    opt.step()

out = norms
out_1 = clipped
out_2 = model[0].weight.detach().clone()
out_3 = model[2].bias.detach().clone()
