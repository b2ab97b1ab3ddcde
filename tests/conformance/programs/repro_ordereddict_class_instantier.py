# case: OrderedDict subclass whose __getitem__ builds an activation module from (class, kwargs); indexed with a string argument, each new string recompiles (fullgraph)
# category: module
# from: test/dynamo/test_repros.py::ReproTests::test_hf_classinstantier
import collections
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class ActRegistry(collections.OrderedDict):
    def __getitem__(self, key):
        entry = super().__getitem__(key)
        cls, kwargs = entry if isinstance(entry, tuple) else (entry, {})
        return cls(**kwargs)


ACTS = ActRegistry(
    {
        "relu": (nn.ReLU, {"inplace": False}),
        "tanh": nn.Tanh,
        "lrelu": (nn.LeakyReLU, {"negative_slope": 0.2}),
    }
)


@torch.compile(fullgraph=True)
def f(x, name):
    return ACTS[name](x) * 2


x = det((4, 5), seed=1)
out = f(x, "tanh")
out_1 = f(x, "relu")
out_2 = f(x, "lrelu")
