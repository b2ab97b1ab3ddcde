# case: slicing a list argument makes a new list; item assignment into the slice inside a loop must not touch the caller's list (fullgraph module)
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_slice_into_list_mutable
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class SliceWriter(nn.Module):
    def forward(self, items):
        part = items[1:3]
        for i in range(3):
            part[0] = torch.abs(part[1]) + i
        return part


cm = torch.compile(SliceWriter(), fullgraph=True)
items = [det((4,), seed=i) for i in range(5)]
orig1 = items[1]
res = cm(items)
out = res
out_1 = items[1] is orig1
out_2 = [len(items), len(res)]
out_3 = res[1] is items[2]
out_4 = res is items
