# case: nested no_grad/enable_grad with a graph break in an inlined helper and backward() inside the compiled fn; returns x.grad, called twice (grad accumulates)
# category: autograd
# from: test/dynamo/test_repros.py::ReproTests::test_with_on_graph_break_nested
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def wrap(t):
    torch._dynamo.graph_break()
    return torch.sin(torch.cos(t))


def f(x):
    with torch.no_grad():
        with torch.enable_grad():
            a = torch.sin(x)
            b = wrap(a)
            c = torch.sigmoid(b)
            c.sum().backward()
            return x.grad


cf = torch.compile(f)
x = det((5,), seed=1).requires_grad_(True)
with torch.no_grad():
    g1 = cf(x)
    out = g1.clone()
    g2 = cf(x)  # gradient accumulates into x.grad
    out_1 = g2.clone()
out_2 = x.grad
