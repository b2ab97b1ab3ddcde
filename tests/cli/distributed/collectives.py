# all_reduce (sum, max, avg; async), broadcast and barrier across the ranks.
import os
import torch
import torch.distributed as dist

print("before init:", dist.is_initialized(), os.environ["LOCAL_RANK"] == os.environ["RANK"])
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.arange(4, dtype=torch.float32) + rank
dist.all_reduce(t)
m = torch.tensor([rank * 10.0, -rank])
work = dist.all_reduce(m, op=dist.ReduceOp.MAX, async_op=True)
work.wait()
a = torch.full((2, 3), float(rank)).t()  # not contiguous
dist.all_reduce(a, op=dist.ReduceOp.AVG)
b = torch.full((3,), 7 if rank == 1 else 0, dtype=torch.int64)
dist.broadcast(b, src=1)
dist.barrier()
print(f"rank {rank}/{world} {dist.get_backend()} sum {t.tolist()} max {m.tolist()} avg {a[0].tolist()} bcast {b.tolist()}")
try:
    dist.init_process_group("gloo")
except ValueError as e:
    print("again:", e)
dist.destroy_process_group()
