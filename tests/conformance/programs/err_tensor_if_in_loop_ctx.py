# case: data-dependent `if` inside a user context manager inside a for loop: the graph break cannot be resumed, the frame runs eagerly; __enter__/__exit__ side effects happen exactly once per iteration
# category: graph_break
# from: test/dynamo/test_error_messages.py::ErrorMessagesTest::test_skip_frame_in_loop_message
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


log = []


class Tracker:
    def __init__(self, tag):
        self.tag = tag

    def __enter__(self):
        log.append("enter" + str(self.tag))
        return self

    def __exit__(self, exc_type, exc, tb):
        log.append("exit" + str(self.tag))
        return False


@torch.compile
def step(x):
    for i in range(3):
        with Tracker(i):
            if x.sum() > 0:
                x = x - 0.5
            else:
                x = x + 0.25
    return x * 2


x = det((2, 3), seed=1)
out = step(x)
out_1 = list(log)
out_2 = step(-x)
out_3 = len(log)
