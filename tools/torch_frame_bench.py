"""Times one captured graph under real PyTorch (CPU, eager) for `kiln bench --torch`.

Arguments: GRAPH (the captured graph in FX's readable form, as `kiln show --stage captured`
prints it: a GraphModule class whose forward takes the graph inputs), INPUTS (a JSON list of
{"dtype", "shape", "file"} with the raw little-endian data of each input of the graph's first
call), REPEAT, THREADS. Prints the median wall time in milliseconds of REPEAT calls of forward
after one warm-up call.
"""
import json
import os
import statistics
import sys
import time

import numpy
import torch

graph_path, inputs_path, repeat, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)

DTYPES = {
    "float32": (numpy.float32, torch.float32),
    "float64": (numpy.float64, torch.float64),
    "int64": (numpy.int64, torch.int64),
    "int32": (numpy.int32, torch.int32),
    "bool": (numpy.bool_, torch.bool),
}

inputs = []
base = os.path.dirname(inputs_path)
with open(inputs_path) as f:
    for spec in json.load(f):
        np_type, _ = DTYPES[spec["dtype"]]
        data = numpy.fromfile(os.path.join(base, spec["file"]), dtype=np_type).reshape(spec["shape"])
        inputs.append(torch.from_numpy(data.copy()))

# FX's readable form writes float("inf") / float("nan") constants as bare inf / nan, as the code
# FX generates does (it imports them from math).
namespace = {"torch": torch, "inf": float("inf"), "nan": float("nan")}
with open(graph_path) as f:
    exec(compile(f.read(), graph_path, "exec"), namespace)
module = namespace["GraphModule"]()

with torch.no_grad():
    times = []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        module.forward(*inputs)
        times.append((time.perf_counter() - t0) * 1000.0)
print(f"{statistics.median(times[1:]):.4f}")
