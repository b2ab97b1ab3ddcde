# case: .item() graph break inside a method of a submodule called from forward; the method also bumps a buffer in place and takes a Python branch on the item value; results and the buffer match eager
# category: module
# from: test/dynamo/test_nested_graph_breaks.py::NestedGraphBreakTests::test_graph_break_in_wrapped_user_method
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Limiter(nn.Module):
    def __init__(self, limit):
        super().__init__()
        self.limit = limit
        self.register_buffer("calls", torch.zeros(()))

    def clip(self, h):
        peak = h.abs().max().item()
        self.calls += 1
        if peak > self.limit:
            return h * (self.limit / peak)
        return h


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.limiter = Limiter(1.5)
        with torch.no_grad():
            self.lin.weight.copy_(det((4, 4), seed=1))
            self.lin.bias.copy_(det((4,), seed=2, scale=0.2))

    def forward(self, x):
        h = self.lin(x)
        h = self.limiter.clip(h)
        return torch.tanh(h) + h


net = Net()
cnet = torch.compile(net)
with torch.no_grad():
    out = cnet(det((2, 4), seed=3, scale=0.1))
    out_1 = cnet(det((2, 4), seed=4, scale=4.0))
out_2 = net.limiter.calls.clone()
