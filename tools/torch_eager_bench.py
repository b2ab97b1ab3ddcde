"""Times a script under real PyTorch (CPU, eager) for `kiln bench --torch`.

torch.compile is made the identity (as `kiln run --eager` does), and the torch._dynamo /
torch.compiler modules the corpus imports are provided when the installed PyTorch predates
them. Prints the median wall time in milliseconds of N runs after one warm-up run.
"""
import runpy
import statistics
import sys
import time
import types

import torch

path, repeat = sys.argv[1], int(sys.argv[2])
if len(sys.argv) > 3:
    torch.set_num_threads(int(sys.argv[3]))


def _identity(model=None, **kwargs):
    return model if model is not None else (lambda f: f)


torch.compile = _identity
torch.nn.Module.compile = lambda self, *a, **k: None
for name in ("torch._dynamo", "torch.compiler"):
    if name not in sys.modules:
        mod = types.ModuleType(name)
        mod.graph_break = lambda *a, **k: None
        mod.reset = lambda *a, **k: None
        sys.modules[name] = mod
        setattr(torch, name.split(".")[1], mod)

times = []
for i in range(repeat + 1):
    t0 = time.perf_counter()
    runpy.run_path(path, run_name="__main__")
    times.append((time.perf_counter() - t0) * 1000.0)
print(f"{statistics.median(times[1:]):.3f}")
