# case: a Function with forward(inp, weight, bias) + separate setup_context and ctx.needs_input_grad in backward, bias optional (None); the call without bias and without input grad recompiles; grads (None where not needed) must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_linear_setup_context
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(inp, weight, bias):
        out = inp.mm(weight.t())
        if bias is not None:
            out = out + bias.unsqueeze(0).expand_as(out)
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        inp, weight, bias = inputs
        ctx.save_for_backward(inp, weight, bias)

    @staticmethod
    def backward(ctx, g):
        inp, weight, bias = ctx.saved_tensors
        gi = gw = gb = None
        if ctx.needs_input_grad[0]:
            gi = g.mm(weight)
        if ctx.needs_input_grad[1]:
            gw = g.t().mm(inp)
        if bias is not None and ctx.needs_input_grad[2]:
            gb = g.sum(0)
        return gi, gw, gb


@torch.compile(fullgraph=True)
def f(inp, weight, bias=None):
    return LinearFn.apply(inp, weight, bias)


inp = det((3, 4), seed=1).requires_grad_()
weight = det((5, 4), seed=2, scale=0.5).requires_grad_()
bias = det((5,), seed=3, scale=0.1).requires_grad_()
y = f(inp, weight, bias)
(y * y).sum().backward()
out = y.detach()
out_1 = [inp.grad.clone(), weight.grad.clone(), bias.grad.clone()]

inp2 = det((3, 4), seed=4)
weight2 = det((5, 4), seed=5, scale=0.5).requires_grad_()
y2 = f(inp2, weight2)
y2.sum().backward()
out_2 = y2.detach()
out_3 = ["none" if inp2.grad is None else inp2.grad.clone(), weight2.grad.clone()]
