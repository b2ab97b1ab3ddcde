# case: `obj.attr = value` where the class __setattr__ calls graph_break (break on STORE_ATTR through a user __setattr__): the stored value (doubled by __setattr__) and the returned tensor match eager on two objects
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_store_attr_graph_break
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Recorder:
    def __setattr__(self, name, value):
        torch._dynamo.graph_break()
        object.__setattr__(self, name, value * 2)


@torch.compile
def stash(rec, x):
    y = x.sin()
    rec.value = y + 1
    return y * 3


r1 = Recorder()
out = stash(r1, det((3, 3), seed=1))
out_1 = r1.value
r2 = Recorder()
out_2 = stash(r2, det((3, 3), seed=2))
out_3 = r2.value
