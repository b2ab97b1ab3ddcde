# case: a module-level settings dict read inside the compiled function is mutated between calls (mode string, then an int factor); each change must be seen (guards on the dict entries, recompiles)
# category: guard
# from: test/dynamo/test_misc.py::MiscTests::test_os_environ_get
import math

import torch




def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)



SETTINGS = {"mode": "fast", "factor": 2}


@torch.compile
def f(x):
    if SETTINGS["mode"] == "fast":
        return x * SETTINGS["factor"]
    return x.sin() + SETTINGS["factor"]


x = det((3, 3), seed=1)
out = f(x)
SETTINGS["mode"] = "precise"
out_1 = f(x)
SETTINGS["factor"] = 5
out_2 = f(x)
SETTINGS["mode"] = "fast"
out_3 = f(x)
