# case: __init__ of an object built inside the compiled fn increments a counter in a list argument; four calls must leave the counter at 4 and use the fresh value each time
# category: python
# from: test/dynamo/test_repros.py::ReproTests::test_user_ctor_ctx_manager_custom_init_graph_break
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class Bumper:
    def __init__(self, box):
        box[0] += 1

    def __enter__(self):
        return 1

    def __exit__(self, exc_type, exc_val, exc_tb):
        return None


def f(x, box):
    x = x * x
    Bumper(box)
    return x * x + box[0]


cf = torch.compile(f)
box = [0]
results = [cf(det((2, 2), seed=i), box) for i in range(4)]
out = box[0]
out_1 = results[0]
out_2 = results[3]
