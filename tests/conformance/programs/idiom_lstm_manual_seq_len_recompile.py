# case: LSTM cell written by hand (Linear gates, chunk into i/f/g/o, sigmoid/tanh) unrolled by range(T) over the sequence; the loop bound specializes, so T=3 and T=5 each compile a graph and a second T=3 call hits the cache
# category: recompile
# from: idiom: LSTM cell written by hand, unrolled over the sequence
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def init_params(module, offset=0):
    """Overwrite every parameter with deterministic values."""
    with torch.no_grad():
        for i, (name, p) in enumerate(module.named_parameters()):
            v = det(tuple(p.shape), seed=i + offset)
            if p.dim() > 1:
                p.copy_(v / math.sqrt(p[0].numel()))
            elif name.endswith("weight"):
                p.copy_(1.0 + 0.1 * v)
            else:
                p.copy_(0.1 * v)


class ManualLSTM(nn.Module):
    def __init__(self, d_in=6, d_h=8):
        super().__init__()
        self.d_h = d_h
        self.ih = nn.Linear(d_in, 4 * d_h)
        self.hh = nn.Linear(d_h, 4 * d_h, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        h = x.new_zeros(B, self.d_h)
        c = x.new_zeros(B, self.d_h)
        outs = []
        for t in range(T):
            gates = self.ih(x[:, t]) + self.hh(h)
            i, f, g, o = gates.chunk(4, dim=-1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outs.append(h)
        return torch.stack(outs, dim=1), (h, c)


model = ManualLSTM()
init_params(model)
compiled = torch.compile(model)

with torch.no_grad():
    y, (h, c) = compiled(det((2, 3, 6), seed=1))
    out = y
    out_1 = c
    y, (h, c) = compiled(det((2, 5, 6), seed=2))
    out_2 = y
    out_3 = c
    y, (h, c) = compiled(det((2, 3, 6), seed=3))
    out_4 = h
