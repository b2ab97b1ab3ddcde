# case: two feed-forward blocks built from a frozen dataclass config (gated vs not, different residual scale) run through one compiled function taking the module as an argument; the second model recompiles on its config/structure, the first model's second call hits the cache
# category: recompile
# from: idiom: dataclass model config read in forward
import dataclasses
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


@dataclasses.dataclass(frozen=True)
class MLPConfig:
    d_model: int = 16
    expansion: int = 2
    gated: bool = True
    norm_eps: float = 1e-5
    residual_scale: float = 1.0


class FeedForward(nn.Module):
    def __init__(self, cfg: MLPConfig):
        super().__init__()
        self.cfg = cfg
        hidden = cfg.d_model * cfg.expansion
        self.norm = nn.LayerNorm(cfg.d_model, eps=cfg.norm_eps)
        self.up = nn.Linear(cfg.d_model, hidden * 2 if cfg.gated else hidden)
        self.down = nn.Linear(hidden, cfg.d_model)

    def forward(self, x):
        h = self.up(self.norm(x))
        if self.cfg.gated:
            a, b = h.chunk(2, dim=-1)
            h = F.silu(a) * b
        else:
            h = F.gelu(h)
        return x + self.cfg.residual_scale * self.down(h)


@torch.compile
def run(block, x):
    return block(x)


m1 = FeedForward(MLPConfig())
init_params(m1)
m2 = FeedForward(MLPConfig(gated=False, norm_eps=1e-3, residual_scale=0.5))
init_params(m2, offset=10)

x = det((3, 16), seed=1)
out = run(m1, x)
out_1 = run(m2, x)
out_2 = run(m1, det((3, 16), seed=2))
out_3 = [m1.cfg.gated, m2.cfg.gated, m2.cfg.residual_scale]
