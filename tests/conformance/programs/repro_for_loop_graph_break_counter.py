# case: graph_break inside a for loop in the compiled fn: the helper called in the loop (with a Python list side effect) is compiled on its own; the side effect runs once per iteration
# category: graph_break
# from: test/dynamo/test_repros.py::ReproTests::test_for_loop_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


calls = []


def step(x, i):
    calls.append(i)
    return torch.sin(x) + i


def f(x):
    acc = x
    for i in range(3):
        acc = step(acc, i)
        torch._dynamo.graph_break()
    return acc


cf = torch.compile(f)
out = cf(det((4,), seed=1))
out_1 = list(calls)
out_2 = cf(det((4,), seed=2))
out_3 = len(calls)
