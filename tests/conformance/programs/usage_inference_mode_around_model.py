# case: a compiled MLP called twice inside torch.inference_mode() (outputs are inference tensors, second call hits the cache), then outside it with grad enabled (grad-mode guard fails: recompile, output requires grad)
# category: ctx
# from: idiom: torch.inference_mode() around a compiled model for serving
import math

import torch
import torch.nn as nn

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

model = nn.Sequential(nn.Linear(6, 8), nn.GELU(), nn.Linear(8, 2))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=i + 1, scale=0.4))
cmodel = torch.compile(model)

with torch.inference_mode():
    p1 = cmodel(det((3, 6), seed=7))
    p2 = cmodel(det((3, 6), seed=8))
out = p1
out_1 = p2
out_2 = [p1.is_inference(), p1.requires_grad]
p3 = cmodel(det((3, 6), seed=7))
out_3 = p3.detach()
out_4 = [p3.is_inference(), p3.requires_grad]
