# case: a Python list of tensors passed to Function.apply (saved for backward, backward returns None for it); list tensors get no .grad even though they require grad; a call with a longer reordered list recompiles (list length guard)
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_tensor_list_as_input
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class ScaleBySum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, parts):
        ctx.save_for_backward(parts[0], parts[1])
        return x.clone() * (parts[0] + parts[1])

    @staticmethod
    def backward(ctx, g):
        p0, p1 = ctx.saved_tensors
        return g * (p0 + p1), None


@torch.compile
def f(x, parts):
    return ScaleBySum.apply(x, parts)


x = det((4,), seed=1).requires_grad_()
p0 = det((4,), seed=2).requires_grad_()
p1 = det((4,), seed=3).requires_grad_()
p2 = det((4,), seed=4).requires_grad_()
y = f(x, [p0, p1])
y.sum().backward()
out = y.detach()
out_1 = [x.grad.clone(), "none" if p0.grad is None else p0.grad.clone()]
x.grad = None
y2 = f(x, [p1, p2, p0])
y2.sum().backward()
out_2 = y2.detach()
out_3 = [x.grad.clone(), "none" if p2.grad is None else p2.grad.clone()]
