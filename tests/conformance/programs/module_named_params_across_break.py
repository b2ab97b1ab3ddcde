# case: forward builds dict(named_parameters()), list(buffers()) and dict(named_modules()), then hits torch._dynamo.graph_break(); the containers must be reconstructed correctly for the resumed graph (two graphs per call)
# category: graph_break
# from: test/dynamo/test_modules.py::NNModuleTests::test_module_forward_has_graph_break
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


def init_params(module, seed=0):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(det(tuple(p.shape), seed=seed + i, scale=0.5))


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.blocks = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
        self.table = nn.ModuleDict({"k": nn.Linear(4, 4)})
        self.register_buffer("running", torch.full((4,), 0.5))

    def forward(self, x):
        x = self.a(x)
        params = dict(self.named_parameters())
        bufs = list(self.buffers())
        mods = dict(self.named_modules())
        torch._dynamo.graph_break()
        y = x + params["blocks.2.weight"].sum(0) + params["table.k.bias"] + bufs[0]
        y = mods["blocks"](y)
        return y, len(params), len(mods)


m = Holder()
init_params(m, seed=9)
opt = torch.compile(m)
out = opt(det((3, 4), seed=1))
out_1 = opt(det((3, 4), seed=2))
