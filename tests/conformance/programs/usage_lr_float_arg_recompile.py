# case: a Python float lr argument that changes every call (0.1, 0.05, 0.025, 0.0125) to a compiled in-place update: the first change recompiles; the same update with a 0-d tensor lr mutated with fill_ never recompiles
# category: recompile
# from: idiom: recompiling when a Python scalar argument changes
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def sgd_update(p, g, lr):
    p.sub_(g * lr)
    return p.norm()


@torch.compile
def sgd_update_t(p, g, lr_t):
    p.sub_(g * lr_t)
    return p.norm()


p = det((6,), seed=1)
g = det((6,), seed=2)
norms = []
for lr in [0.1, 0.05, 0.025, 0.0125]:
    norms.append(sgd_update(p, g, lr))
out = torch.stack(norms)
out_1 = p.clone()

q = det((6,), seed=1)
lr_t = torch.tensor(0.1)
n1 = sgd_update_t(q, g, lr_t)
lr_t.fill_(0.05)
n2 = sgd_update_t(q, g, lr_t)
out_2 = torch.stack([n1, n2])
out_3 = q.clone()
