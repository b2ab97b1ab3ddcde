# case: .item() calls (graph breaks with default config) interleaved with list append/pop and dict pop/setitem on locals; the list and dict state carried across the breaks must match eager
# category: graph_break
# from: test/dynamo/test_misc.py::MiscTests::test_side_effects_codegen_update_mutated
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def f1(x):
    lst = [x]
    lst.append(x + 1)
    s0 = lst[0].sum().item()
    last = lst.pop()
    s1 = last.sum().item()
    return lst, s0 + s1


def f2(a, b):
    d = {"a": a + 1, "b": b + 2}
    x = d.pop("b")
    v = x.sum().item()
    y = d["a"] + x * v
    d["c"] = y
    return list(d.keys()), d["c"]


opt_f1 = torch.compile(f1)
opt_f2 = torch.compile(f2)
out = opt_f1(det((2, 3), seed=1))
out_1 = opt_f2(det((3, 2), seed=2), det((3, 2), seed=3))
