# case: dataclass with default_factory dict/list fields created, mutated and returned from a fullgraph fn; each instance must get fresh containers and the returned instance must be reconstructed
# category: python
# from: test/dynamo/test_functions.py::DefaultsTests::test_dataclass_factory
import dataclasses
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@dataclasses.dataclass
class Output:
    scalar: int = 2
    named: dict = dataclasses.field(default_factory=dict)
    items: list = dataclasses.field(default_factory=list)

    def scale(self):
        return self.scalar * 2


@torch.compile(fullgraph=True)
def f(x):
    a = Output(1)
    s = a.scale()
    b = Output(5, named={"x": x})
    c = Output()
    if isinstance(a.named, dict) and len(a.items) == 0:
        x = torch.sin(x)
    c.scalar = 6
    c.named["x"] = x
    c.items.append(s)
    return c, torch.cos(x) * s + b.named["x"] + c.scalar


res, out = f(det((4,), seed=1))
out_1 = res.scalar
out_2 = res.named["x"]
out_3 = list(res.items)
out_4 = len(Output().named) + len(Output().items)  # defaults are not shared
