# case: a torch._dynamo.disable'd callee receives a function defined inside the compiled frame (graph break at the call); the reconstructed function must keep __name__/__qualname__ and be callable
# category: graph_break
# from: test/dynamo/test_functions.py::DefaultsTests::test_reconstructed_name
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


names = []


@torch._dynamo.disable
def record(fn):
    names.append(fn.__name__ + "|" + fn.__qualname__)
    return fn()


def work(x):
    def helper():
        return 3

    y = x * 2
    k = record(helper)
    return y + k


compiled = torch.compile(work)
x = det((3,), seed=1)
out = compiled(x)
out_1 = work(x)
out_2 = list(names)
out_3 = names[0] == names[1]
