# Two ranks train under DistributedDataParallel (gloo on the CPU, or nccl with one GPU per rank),
# each on its part of a batch; after the steps every parameter must equal, on every rank, the
# single-process run on the whole batch.
# Run with: kiln run --nproc-per-node 2 ddp_matches_single_process.py
# (argv is not available to scripts: the environment switches KILN_TEST_COMPILE=1 for
# DDP(torch.compile(model)), KILN_TEST_COMPILE=autotune for the same with mode="max-autotune",
# KILN_TEST_COMPILE=outer for torch.compile(DDP(model)) and KILN_TEST_BACKEND=nccl.)
import os
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

COMPILE = os.environ.get("KILN_TEST_COMPILE", "0")
BACKEND = os.environ.get("KILN_TEST_BACKEND", "gloo")
STEPS = 3

dist.init_process_group(backend=BACKEND)
rank = dist.get_rank()
world = dist.get_world_size()
device = torch.device("cpu")
if BACKEND == "nccl":
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))


class Net(nn.Module):
    # A model class of the script's own: under torch.compile(DDP(model)) PyTorch compiles the
    # wrapped module's forward frame, which a bare nn.Sequential's is not (0 graphs in 2.11).
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x):
        return self.layers(x)


def make_model(seed):
    torch.manual_seed(seed)
    # weights of 1 MiB, 4 MiB, 4 MiB and 64 KiB: three buckets at bucket_cap_mb=1
    return nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                         nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 16)).to(device)


torch.manual_seed(0)
X = torch.randn(4 * world, 256).to(device)
Y = torch.randn(4 * world, 16).to(device)

model = make_model(100 + rank)  # different on each rank: DDP broadcasts rank 0's
if COMPILE == "outer":
    ddp = DDP(Net(model), bucket_cap_mb=1)
    net = torch.compile(ddp)
else:
    compiled = {"1": lambda m: torch.compile(m), "autotune": lambda m: torch.compile(m, mode="max-autotune")}
    ddp = DDP(compiled[COMPILE](model) if COMPILE in compiled else model, bucket_cap_mb=1)
    net = ddp
opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
part = slice(rank * 4, rank * 4 + 4)
for step in range(STEPS):
    opt.zero_grad()
    loss = F.mse_loss(net(X[part]), Y[part])
    loss.backward()
    opt.step()

ref = make_model(100)
ropt = torch.optim.SGD(ref.parameters(), lr=0.05)
for step in range(STEPS):
    ropt.zero_grad()
    F.mse_loss(ref(X), Y).backward()
    ropt.step()

diff = max((a - b).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))
flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
low, high = flat.clone(), flat.clone()
dist.all_reduce(low, op=dist.ReduceOp.MIN)
dist.all_reduce(high, op=dist.ReduceOp.MAX)
same = torch.equal(low, high)
print(f"rank {rank} of {world} on {device} ({dist.get_backend()}): buckets {len(ddp._buckets)}, equal to single process {diff < 1e-5}, ranks identical {same}")
if diff < 1e-5 and same:
    print(f"rank {rank} ok")
else:
    print(f"rank {rank} max difference {diff}")
dist.barrier()
dist.destroy_process_group()
