# case: a compiled nn.Linear called under torch.no_grad() and then with grad enabled: the grad-mode guard fails on the second call (recompile); a later no_grad call reuses the first graph
# category: recompile
# from: idiom: calling a compiled model under torch.no_grad() for evaluation and without it for training
import math

import torch
import torch.nn as nn

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

lin = nn.Linear(5, 3)
with torch.no_grad():
    lin.weight.copy_(det((3, 5), seed=1, scale=0.5))
    lin.bias.copy_(det((3,), seed=2, scale=0.1))
cmodel = torch.compile(lin)
x = det((2, 5), seed=3)

with torch.no_grad():
    r1 = cmodel(x)
out = r1
out_1 = r1.requires_grad
r2 = cmodel(x)
out_2 = r2.requires_grad
r2.pow(2).sum().backward()
out_3 = lin.weight.grad.clone()
with torch.no_grad():
    r3 = cmodel(x * 2)
out_4 = r3
