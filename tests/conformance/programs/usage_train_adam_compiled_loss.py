# case: compiled loss function taking the model as an argument (forward + cross_entropy in one graph), backward and Adam step outside; 3 steps, parameters and Adam moments after
# category: training
# from: idiom: compiled loss function with an eager torch.optim.Adam
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

model = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 2, scale=0.5))


@torch.compile
def compute_loss(net, x, target):
    logits = net(x)
    return F.cross_entropy(logits, target)


opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = det((8, 5), seed=11)
target = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1])
losses = []
for step in range(3):
    opt.zero_grad()
    loss = compute_loss(model, x, target)
    loss.backward()
    opt.step()
    losses.append(loss.item())

out = losses
out_1 = model[0].weight.detach().clone()
out_2 = model[2].bias.detach().clone()
out_3 = opt.state[model[2].weight]["exp_avg"].clone()
out_4 = opt.state[model[2].weight]["exp_avg_sq"].clone()
