# case: dynamic=True, fullgraph: torch.prod over dim 3 with keepdim and backward, for three 4-d shapes; one graph serves all shapes and the gradients must match eager
# category: dynamic
# from: test/dynamo/test_unspec.py::UnspecTests::test_no_recompiles_prod_backward
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile(fullgraph=True, dynamic=True)
def f(t):
    return torch.prod(t, 3, keepdim=True)


forwards = []
grads = []
for i, shape in enumerate([(2, 3, 3, 2), (2, 2, 4, 2), (2, 4, 2, 2)]):
    t = det(shape, seed=i + 1).requires_grad_()
    r = f(t)
    r.backward(torch.ones_like(r))
    forwards.append(r.detach())
    grads.append(t.grad)

out = forwards
out_1 = grads
