# case: nn.GRUCell stepped by a compiled function whose hidden state defaults to None (zeros created inside); the first call (h=None) and the second (h=tensor) compile separate graphs, the third reuses the second; the hidden state is carried between calls
# category: recompile
# from: idiom: GRU cell stepping with an optional initial hidden state
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


cell = nn.GRUCell(6, 8)
init_params(cell)


@torch.compile
def gru_step(x, h=None):
    if h is None:
        h = x.new_zeros(x.shape[0], 8)
    return cell(x, h)


with torch.no_grad():
    h1 = gru_step(det((3, 6), seed=1))
    h2 = gru_step(det((3, 6), seed=2), h1)
    h3 = gru_step(det((3, 6), seed=3), h2)
out = h1
out_1 = h2
out_2 = h3
