# case: three SGD steps on a weight-tied LM compiled once: in-place optimizer updates of the shared embedding/lm_head parameter change later losses without recompiling, and the tie survives the updates
# category: training
# from: idiom: weight tying trained with an optimizer
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


class TiedLM(nn.Module):
    def __init__(self, vocab=10, d=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.proj = nn.Linear(d, d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, ids):
        h = F.gelu(self.proj(self.embed(ids)))
        return self.lm_head(h)


model = TiedLM()
init_params(model)
compiled = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.5)

ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
targets = torch.tensor([[2, 3, 4, 5], [6, 7, 8, 9]])
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(compiled(ids).reshape(-1, 10), targets.reshape(-1))
    loss.backward()
    opt.step()
    losses.append(loss.item())

out = losses
out_1 = model.embed.weight.detach().clone()
out_2 = model.lm_head.weight is model.embed.weight
out_3 = losses[2] < losses[0]
