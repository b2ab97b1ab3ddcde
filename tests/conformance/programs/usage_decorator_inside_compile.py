# case: torch.compile over a function wrapped by a parameterized tracing decorator (closure over tag, *args/**kwargs) that also wraps a helper used inside: wrappers are inlined, global list appends replayed in order every call
# category: python
# from: idiom: decorated function passed to torch.compile
import functools
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)

trace = []


def traced(tag):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            trace.append(tag)
            result = fn(*args, **kwargs)
            trace.append(tag + ":done")
            return result

        return wrapper

    return deco


@traced("helper")
def helper(t, factor=2.0):
    return t * factor


@torch.compile
@traced("block")
def block(x, w):
    return torch.tanh(helper(x, factor=0.5) @ w)


w = det((4, 3), seed=9)
out = block(det((2, 4), seed=1), w)
out_1 = block(det((2, 4), seed=2), w)
out_2 = len(trace)
out_3 = trace
