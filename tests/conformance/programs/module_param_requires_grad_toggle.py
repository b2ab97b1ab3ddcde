# case: parameters of a submodule are frozen/unfrozen (requires_grad toggled) between fullgraph compiled calls; forward values and the gradients computed by backward outside the compiled call must follow the current requires_grad (guard on requires_grad, recompile)
# category: training
# from: test/dynamo/test_modules.py::OptimizedModuleTest::test_param_requires_grad
import math

import torch
import torch.nn as nn


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


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(4, 4)
        self.layer2 = nn.Linear(4, 4)

    def forward(self, x):
        return self.layer2(x + self.layer1.bias)


m = TwoLayer()
init_params(m, seed=3)
opt = torch.compile(m, fullgraph=True)
x = det((3, 4), seed=1)


def step(freeze):
    m.zero_grad(set_to_none=True)
    for p in m.layer2.parameters():
        p.requires_grad_(not freeze)
    y = opt(x)
    y.sum().backward()
    g1 = m.layer1.bias.grad
    g2 = m.layer2.weight.grad
    return [y.detach(), g1.clone(), "none" if g2 is None else g2.clone(), y.requires_grad]


out = step(True)
out_1 = step(False)
out_2 = step(True)
