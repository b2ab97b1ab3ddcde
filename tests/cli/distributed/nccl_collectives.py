# torch.distributed's nccl backend, one GPU per rank (cuda:LOCAL_RANK): all_reduce (sum, max,
# avg; async), broadcast and barrier of CUDA tensors, and PyTorch's errors for what NCCL refuses.
# Run with: kiln run --nproc-per-node N nccl_collectives.py (N <= the GPUs).
import os
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl")
torch.cuda.set_device(local)
rank, world = dist.get_rank(), dist.get_world_size()
dev = torch.device("cuda", local)
t = torch.arange(4, dtype=torch.float32, device=dev) + rank
dist.all_reduce(t)
m = torch.tensor([rank * 10.0, -rank], device=dev)
work = dist.all_reduce(m, op=dist.ReduceOp.MAX, async_op=True)
work.wait()
a = torch.full((2, 3), float(rank), device=dev)
dist.all_reduce(a, op=dist.ReduceOp.AVG)
b = torch.full((3,), 7 if rank == world - 1 else 0, dtype=torch.int64, device=dev)
dist.broadcast(b, src=world - 1)
big = torch.ones(1 << 20, device=dev) * (rank + 1)
dist.all_reduce(big)
dist.barrier()
print(f"rank {rank}/{world} {dist.get_backend()} on {t.device} current {torch.cuda.current_device()} "
      f"sum {t.cpu().tolist()} max {m.cpu().tolist()} avg {a[0].cpu().tolist()} bcast {b.cpu().tolist()} "
      f"big {big[-1].item()}")
try:
    dist.all_reduce(torch.ones(3))
except RuntimeError as e:
    print(f"rank {rank} cpu tensor: {e}")
try:
    dist.all_reduce(torch.ones(2, 3, device=dev).t())
except ValueError as e:
    print(f"rank {rank} transposed: {e}")
if torch.cuda.device_count() > 1:
    other = (local + 1) % torch.cuda.device_count()
    try:
        torch.ones(2, device=f"cuda:{other}")
    except NotImplementedError as e:
        print(f"rank {rank} other gpu: {str(e)[:40]}")
print("nccl version", ".".join(str(v) for v in torch.cuda.nccl.version()))
dist.destroy_process_group()
