# case: gradient accumulation over two micro-batches through a compiled model (backward twice without zero_grad sums grads), then SGD step and zero_grad(set_to_none=False) leaving zero-filled grads
# category: training
# from: idiom: gradient accumulation and zero_grad(set_to_none=False)
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

model = nn.Linear(4, 2)
with torch.no_grad():
    model.weight.copy_(det((2, 4), seed=1, scale=0.5))
    model.bias.copy_(det((2,), seed=2, scale=0.5))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

micro = [(det((3, 4), seed=10), det((3, 2), seed=11)), (det((3, 4), seed=12), det((3, 2), seed=13))]
for xb, yb in micro:
    loss = F.mse_loss(cmodel(xb), yb) / len(micro)
    loss.backward()

out = model.weight.grad.clone()
out_1 = model.bias.grad.clone()
opt.step()
opt.zero_grad(set_to_none=False)
out_2 = model.weight.grad is None
out_3 = model.weight.grad.clone()
out_4 = model.weight.detach().clone()
