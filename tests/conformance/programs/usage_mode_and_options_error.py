# case: torch.compile argument validation: mode and options together, an unknown mode string and an unknown options key each raise when torch.compile is called (caught); a valid mode still compiles and runs
# category: error
# from: idiom: torch.compile with mode= and options=
import math

import torch

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def fn(x):
    return torch.sigmoid(x) * x


x = det((2, 5), seed=1)
try:
    g = torch.compile(fn, mode="reduce-overhead", options={"epilogue_fusion": False})
    out = g(x)
except Exception as e:
    out = "error: " + type(e).__name__
try:
    g = torch.compile(fn, mode="fastest-possible")
    out_1 = g(x)
except Exception as e:
    out_1 = "error: " + type(e).__name__
try:
    g = torch.compile(fn, options={"no_such_inductor_option": True})
    out_2 = g(x)
except Exception as e:
    out_2 = "error: " + type(e).__name__
ok = torch.compile(fn, mode="default")
out_3 = ok(x)
