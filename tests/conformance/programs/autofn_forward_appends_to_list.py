# case: Function.forward appends an intermediate tensor to a Python list created in the compiled caller (side effect inside the traced Function); the caller reads the list after apply; values and grads must match eager
# category: autograd
# from: test/dynamo/test_autograd_function.py::AutogradFunctionTests::test_nonlocal_list_mutation_in_autograd_function
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class SinCos(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, sink):
        o = torch.matmul(x, x) @ x
        sink.append(x.sin())
        return torch.cos(torch.sin(o)), torch.sin(x)

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2, None


@torch.compile
def fn(x):
    sink = []
    outs = SinCos.apply(x, sink)
    return outs[0] + outs[-1], sink[0], len(sink)


x = det((3, 3), seed=1, scale=0.5).requires_grad_()
res, first, n = fn(x)
res.sum().backward()
out = [res.detach(), first, n]
out_1 = x.grad.clone()
