# case: torch.compile on a bound method of a plain object (reads self.factor) and on a non-forward nn.Module method: changing the attribute between calls fails the guard (recompile), values follow the new attribute
# category: guard
# from: idiom: compiling bound methods (obj.method, model.encode)
import math

import torch
import torch.nn as nn

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, x):
        return x * self.factor + 1


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 2)
        self.dec = nn.Linear(2, 4)

    def encode(self, x):
        return torch.tanh(self.enc(x))

    def forward(self, x):
        return self.dec(self.encode(x))


s = Scaler(2.0)
capply = torch.compile(s.apply)
x = det((2, 4), seed=1)
out = capply(x)
out_1 = capply(det((2, 4), seed=2))
s.factor = 3.0
out_2 = capply(x)

ae = AutoEncoder()
with torch.no_grad():
    for i, p in enumerate(ae.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 40, scale=0.5))
cencode = torch.compile(ae.encode)
out_3 = cencode(x).detach()
out_4 = cencode(det((2, 4), seed=3)).detach()
