# case: in-place residual update x.add_(delta * 0.5) followed by x * delta, called with distinct tensors, with the same tensor for both arguments, and with overlapping views of one buffer; the compiled results and the mutated inputs must match eager aliasing semantics
# category: inplace
# from: idiom: in-place residual update with aliased arguments
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def residual_update(x, delta):
    x.add_(delta * 0.5)
    return x * delta


a = det((8,), seed=1)
b = det((8,), seed=2)
out = residual_update(a, b)
out_1 = a.clone()

c = det((8,), seed=3)
out_2 = residual_update(c, c)
out_3 = c.clone()

buf = det((12,), seed=4)
out_4 = residual_update(buf[:8], buf[4:12])
out_5 = buf.clone()
