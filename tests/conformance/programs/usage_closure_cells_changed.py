# case: closures of a compiled inner function: an in-place update of a captured tensor is seen without recompiling, rebinding a captured float via nonlocal recompiles
# category: guard
# from: idiom: closures mutated between calls of a compiled function
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def make_model():
    weight = det((4,), seed=3)
    gain = 1.0

    @torch.compile
    def apply(x):
        return torch.tanh(x * weight) * gain

    def set_gain(g):
        nonlocal gain
        gain = g

    return apply, weight, set_gain


apply, weight, set_gain = make_model()
x = det((2, 4), seed=1)
out = apply(x)
weight.mul_(-1)
out_1 = apply(x)
set_gain(0.5)
out_2 = apply(x)
out_3 = apply(det((2, 4), seed=2))
