# case: torch._dynamo.graph_break() inside a custom autograd.Function forward, applied from a compiled module; Dynamo cannot trace the Function as one op (graph break, 2 frames); forward values and the custom backward's gradients must match eager
# category: graph_break
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_autograd_function_has_graph_break
import math

import torch
import torch.nn as nn
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class BreakyDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x * 2
        torch._dynamo.graph_break()
        r = r + x.cos()
        ctx.save_for_backward(x)
        return r

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (2 - x.sin())


class Wrap(nn.Module):
    def forward(self, x):
        return BreakyDouble.apply(x) * 3


opt = torch.compile(Wrap())
x = det((6,), seed=1).requires_grad_()
y = opt(x)
y.sum().backward()
out = y.detach()
out_1 = x.grad.clone()
x2 = det((6,), seed=2).requires_grad_()
y2 = opt(x2)
y2.sum().backward()
out_2 = x2.grad.clone()
