# case: token embedding with padding_idx plus learned positions from torch.arange, LayerNorm, MSE loss backward through the compiled model: the padding row gets a zero gradient, position rows accumulate gradients
# category: training
# from: idiom: token + learned positional embeddings with padding_idx
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


class TokPosEmbed(nn.Module):
    def __init__(self, vocab=12, max_len=16, d=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Embedding(max_len, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, ids):
        T = ids.shape[1]
        positions = torch.arange(T, device=ids.device).unsqueeze(0)
        return self.norm(self.tok(ids) + self.pos(positions))


model = TokPosEmbed()
init_params(model)
compiled = torch.compile(model)

ids = torch.tensor([[3, 5, 0, 0, 7], [1, 0, 2, 9, 0]])
target = det((2, 5, 8), seed=4)
loss = F.mse_loss(compiled(ids), target)
loss.backward()
out = loss.detach()
out_1 = model.tok.weight.grad.clone()
out_2 = bool((model.tok.weight.grad[0] == 0).all())
out_3 = model.pos.weight.grad.clone()
