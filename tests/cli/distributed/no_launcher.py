# Without `kiln run --nproc-per-node`, env:// finds no RANK (PyTorch's error), and nccl without
# GPUs is refused as PyTorch refuses it.
import os
import torch.distributed as dist

print(os.environ.get("RANK", "no RANK"))
try:
    dist.init_process_group(backend="nccl")
except ValueError as e:
    print(type(e).__name__ + ":", e)
try:
    dist.get_rank()
except ValueError as e:
    print(type(e).__name__ + ":", e)
