# case: classifier taking a dict batch (input_ids, attention_mask, optional labels) with masked mean pooling; adding a "labels" key changes the guarded dict keys and recompiles to also return the loss; new label values reuse that graph
# category: recompile
# from: idiom: dict batch inputs with an optional labels key
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


class Classifier(nn.Module):
    def __init__(self, vocab=16, d=8, n_classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.head = nn.Linear(d, n_classes)

    def forward(self, batch):
        mask = batch["attention_mask"].unsqueeze(-1).to(torch.float32)
        pooled = (self.embed(batch["input_ids"]) * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.head(pooled)
        if "labels" in batch:
            return logits, F.cross_entropy(logits, batch["labels"])
        return (logits,)


model = Classifier()
init_params(model)
compiled = torch.compile(model)

ids = torch.tensor([[3, 9, 4, 0], [7, 2, 0, 0]])
att = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
with torch.no_grad():
    r1 = compiled({"input_ids": ids, "attention_mask": att})
    r2 = compiled({"input_ids": ids, "attention_mask": att, "labels": torch.tensor([2, 0])})
    r3 = compiled({"input_ids": ids, "attention_mask": att, "labels": torch.tensor([1, 1])})
out = r1[0]
out_1 = len(r1)
out_2 = r2[1]
out_3 = len(r2)
out_4 = r3[1]
