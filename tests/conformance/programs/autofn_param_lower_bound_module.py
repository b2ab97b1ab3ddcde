# case: a Function clamping a module Parameter from below (non-tensor float bound argument, bound saved as a tensor), applied in a compiled module's forward; the gradient mask on the parameter (backward outside) must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_function_with_bound_free_variable
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class LowerBound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inputs, bound):
        ctx.save_for_backward(inputs, inputs.new_ones(1) * bound)
        return inputs.clamp(min=bound)

    @staticmethod
    def backward(ctx, g):
        inputs, b = ctx.saved_tensors
        return (inputs >= b) * g, None


class Gamma(nn.Module):
    def __init__(self):
        super().__init__()
        self.gamma = nn.Parameter(det((4, 6), seed=3))

    def forward(self, x):
        return x * LowerBound.apply(self.gamma, 0.1)


mod = Gamma()
opt = torch.compile(mod)
x = det((4, 6), seed=1)
y = opt(x)
y.sum().backward()
out = y.detach()
out_1 = mod.gamma.grad.clone()
mod.zero_grad()
y2 = opt(x * 2)
y2.sum().backward()
out_2 = mod.gamma.grad.clone()
