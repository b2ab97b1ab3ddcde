# case: a module method decorated with @torch._dynamo.disable is called from forward of a compiled module: graph break at that method, the rest is compiled; forward values and parameter grads match eager
# category: graph_break
# from: test/dynamo/test_decorators.py::DecoratorTests::test_torch_guards_stack_frame_register_inlining_partially_disable
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


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)
        self.scale = nn.Parameter(torch.ones(6))

    @torch._dynamo.disable
    def side_branch(self, h):
        return h.sin() * self.scale.cos()

    def main_branch(self, h):
        return self.proj(h) * self.scale

    def forward(self, x):
        h = x + x
        return self.main_branch(h) + self.side_branch(h)


model = Encoder()
with torch.no_grad():
    model.proj.weight.copy_(det((6, 6), seed=3, scale=0.4))
    model.proj.bias.copy_(det((6,), seed=4, scale=0.1))
    model.scale.copy_(1.0 + det((6,), seed=5, scale=0.2))

cmodel = torch.compile(model)
y = cmodel(det((3, 6), seed=1))
y.sum().backward()
out = y.detach()
out_1 = model.scale.grad.clone()
out_2 = model.proj.weight.grad.clone()
out_3 = cmodel(det((3, 6), seed=2)).detach()
