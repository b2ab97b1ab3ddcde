# case: torch._dynamo.graph_break() inside nested user-defined context managers (which cannot cross a graph break): the function falls back to eager; the enter/exit event order is the eager one on both calls
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_generic_ctx_mgr_graph_break_fullgraph_false
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


events = []


class Section:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        events.append("in:" + self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        events.append("out:" + self.name)
        return False


@torch.compile
def work(x):
    y = x.relu()
    with Section("outer"):
        with Section("a"):
            y = y + 1
        with Section("b"):
            y = y * 2
            torch._dynamo.graph_break()
            y = y - 3
    return y.sum(dim=0)


out = work(det((3, 4), seed=1))
out_1 = list(events)
out_2 = work(det((3, 4), seed=2))
out_3 = len(events)
