# case: StepLR(step_size=2, gamma=0.5) stepping after each SGD step on a compiled model: lr sequence read from param_groups and get_last_lr(), parameters after 4 steps (lr changes do not touch the compiled graph)
# category: training
# from: idiom: lr scheduler with a compiled model
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

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(det((1, 3), seed=1))
    model.bias.fill_(0.2)
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
x = det((12, 3), seed=5)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3

lrs = []
last = []
losses = []
for step in range(4):
    lrs.append(opt.param_groups[0]["lr"])
    opt.zero_grad()
    loss = F.mse_loss(cmodel(x), y)
    loss.backward()
    opt.step()
    sched.step()
    last.append(sched.get_last_lr()[0])
    losses.append(loss.item())

out = lrs
out_1 = last
out_2 = losses
out_3 = model.weight.detach().clone()
out_4 = model.bias.detach().clone()
