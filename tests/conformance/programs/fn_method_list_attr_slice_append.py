# case: compiled method rebinds self.items to a slice of itself and appends the input (side effect on an object attribute); list length 3 then 4 gives one recompile, later calls reuse it
# category: recompile
# from: test/dynamo/test_functions.py::FunctionTests::test_list_slice
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class History:
    def __init__(self):
        self.items = [torch.zeros(4), torch.ones(4), torch.full((4,), 2.0)]

    @torch.compile
    def push(self, x):
        self.items = self.items[-3:]
        self.items.append(x)
        return torch.sin(x) + self.items[0]


h = History()
results = [h.push(det((4,), seed=s)) for s in range(1, 5)]
out = torch.stack(results)
out_1 = len(h.items)
out_2 = torch.stack(h.items)
