# case: an Enum member passed as a non-tensor argument to Function.apply selects sin or cos in forward and is stored on ctx for backward; a different enum member recompiles (constant guard); values and grads must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_enum_arg
import enum
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Mode(enum.Enum):
    SIN = 0
    COS = 1


class Trig(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mode):
        ctx.save_for_backward(x)
        ctx.mode = mode
        if mode is Mode.SIN:
            return x.sin()
        return x.cos()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if ctx.mode is Mode.SIN:
            return g * x.cos(), None
        return -g * x.sin(), None


@torch.compile(fullgraph=True)
def f(x, mode):
    return Trig.apply(x, mode) * 2


x = det((2, 3), seed=1).requires_grad_()
y = f(x, Mode.SIN)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x2 = det((2, 3), seed=1).requires_grad_()
y2 = f(x2, Mode.COS)
y2.sum().backward()
out_2 = y2.detach()
out_3 = x2.grad.clone()
