# case: a context manager passed as an argument: a nullcontext instance, the nullcontext class called inside, then torch.no_grad as the class (recompile; output loses requires_grad)
# category: ctx
# from: test/dynamo/test_repros.py::ReproTests::test_nullcontext2
import contextlib
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True)
def f_inst(x, ctx):
    x = x.sin()
    with ctx:
        x = x.cos()
    return x.sin()


@torch.compile(fullgraph=True)
def f_cls(x, ctx_factory):
    x = x.sin()
    with ctx_factory():
        x = x.cos()
    return x.sin()


x = det((5,), seed=1).requires_grad_(True)
out = f_inst(x, contextlib.nullcontext())
out_1 = f_cls(x, contextlib.nullcontext)
out_2 = f_cls(x, torch.no_grad)  # different class: recompiles
out_3 = [out.requires_grad, out_1.requires_grad, out_2.requires_grad]
