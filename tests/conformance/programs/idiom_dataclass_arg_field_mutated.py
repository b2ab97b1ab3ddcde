# case: a mutable dataclass of sampling settings passed as an argument; mutating its temperature and then its top_k between calls changes guarded values, so the second and third calls each recompile
# category: guard
# from: idiom: dataclass config passed to a compiled sampling function
import dataclasses
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@dataclasses.dataclass
class SamplingConfig:
    temperature: float = 1.0
    top_k: int = 4


@torch.compile
def filtered_probs(logits, cfg):
    scaled = logits / cfg.temperature
    top_vals, _ = torch.topk(scaled, cfg.top_k, dim=-1)
    threshold = top_vals[..., -1:]
    scaled = scaled.masked_fill(scaled < threshold, float("-inf"))
    return F.softmax(scaled, dim=-1)


cfg = SamplingConfig()
logits = det((2, 10), seed=1, scale=3.0)
out = filtered_probs(logits, cfg)
cfg.temperature = 0.5
out_1 = filtered_probs(logits, cfg)
cfg.top_k = 2
out_2 = filtered_probs(logits, cfg)
out_3 = [int((out > 0).sum()), int((out_2 > 0).sum())]
