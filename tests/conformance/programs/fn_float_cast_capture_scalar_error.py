# case: with capture_scalar_outputs, float(x + 1) on a one-element tensor works under fullgraph; a two-element input cannot be converted and must raise (eager and compiled), caught by the script
# category: error
# from: test/dynamo/test_functions.py::DefaultsTests::test_cast_tensor_single_elem
import math

import torch
import torch._dynamo


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


torch._dynamo.config.capture_scalar_outputs = True


@torch.compile(fullgraph=True, dynamic=False)
def to_float(x):
    x = x + 1
    return float(x)


out = to_float(torch.tensor([1.5]))
out_1 = to_float(torch.tensor([-2.25]))
try:
    out_2 = to_float(torch.tensor([1.0, 2.0]))
except Exception as e:
    out_2 = "error: " + type(e).__name__
