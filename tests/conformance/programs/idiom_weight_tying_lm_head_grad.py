# case: tiny LM whose lm_head.weight is tied to the embedding weight; cross_entropy backward through the compiled model accumulates both uses into the single shared parameter's grad
# category: training
# from: idiom: weight tying between embedding and output projection
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


class TinyLM(nn.Module):
    def __init__(self, vocab=12, d=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Linear(d, d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, ids):
        h = self.embed(ids)
        h = h + torch.tanh(self.ff(self.norm(h)))
        return self.lm_head(h)


model = TinyLM()
init_params(model)
compiled = torch.compile(model)

ids = torch.tensor([[1, 4, 7, 2, 9], [3, 3, 11, 0, 5]])
targets = torch.tensor([[4, 7, 2, 9, 1], [3, 11, 0, 5, 6]])
logits = compiled(ids)
loss = F.cross_entropy(logits.reshape(-1, 12), targets.reshape(-1))
loss.backward()
out = loss.detach()
out_1 = model.embed.weight.grad.clone()
out_2 = model.lm_head.weight is model.embed.weight
out_3 = len(list(model.parameters()))
out_4 = model.ff.weight.grad.clone()
