# case: a functools.wraps call-counting decorator applied on top of a torch.compile'd function: the counter runs in plain Python every call; the compiled function sees a changed float eps keyword on the last call
# category: python
# from: idiom: user decorator stacked over @torch.compile
import functools
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

call_log = []


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        call_log.append(fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


@counted
@torch.compile
def norm_rows(x, eps=1e-5):
    return x / (x.norm(dim=1, keepdim=True) + eps)


out = norm_rows(det((3, 4), seed=1))
out_1 = norm_rows(det((3, 4), seed=2))
out_2 = norm_rows(det((3, 4), seed=3), eps=0.5)
out_3 = call_log
out_4 = norm_rows.__name__
