# case: with capture_scalar_outputs=True a module returns torch.max(x).int().item() as a Python int from one fullgraph graph; a second input built from that int gives a new int, a new shape recompiles
# category: dynamic
# from: test/dynamo/test_misc.py::MiscTests::test_item_changes
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


torch._dynamo.config.capture_scalar_outputs = True


class Peak(nn.Module):
    def forward(self, x):
        z = torch.max(x)
        return z.int().item()


m = torch.compile(Peak(), fullgraph=True)
y = m(det((1, 3), seed=1, scale=20.0))
out = y
z = m(det((1, 3), seed=2, scale=5.0) + y)
out_1 = z
out_2 = m(det((2, 4), seed=3, scale=40.0))
