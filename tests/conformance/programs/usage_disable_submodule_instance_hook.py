# case: a submodule instance replaced by torch._dynamo.disable(submodule) (with a forward pre-hook on it) inside a compiled parent: graph before it, the disabled submodule and its hook run eagerly, graph after it
# category: graph_break
# from: test/dynamo/test_decorators.py::DecoratorTests::test_disable_nn_modules_forward_hook
import math

import torch
import torch._dynamo
import torch.nn as nn

def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(torch.sigmoid(x))


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        z = self.inner(torch.sin(x))
        return self.head(z).relu()


hook_calls = []


def pre_hook(module, args):
    hook_calls.append(1)
    return (args[0] * 2,)


model = Outer()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(det(tuple(p.shape), seed=10 + i, scale=0.5))
model.inner.register_forward_pre_hook(pre_hook)
model.inner = torch._dynamo.disable(model.inner)

cmodel = torch.compile(model)
out = cmodel(det((2, 4), seed=1))
out_1 = cmodel(det((2, 4), seed=2))
out_2 = len(hook_calls)
