# Found by tests/fuzz (tensor_fuzzer): reductions and advanced indexing listed every offset of a
# view before allocating anything. Of a broadcast view with 2^62 elements that list grew past the
# memory limit for minutes (--timeout could not stop it); now it fails at once with the
# allocator's error.
import torch

x = torch.zeros(1).expand(5, 5, 5, 1000)
try:
    x[torch.zeros(5, 5, 5, 1000, dtype=torch.long)]
except RuntimeError as e:
    print("indexing:", str(e)[:60])
torch.zeros(1).expand(2**62).all()
