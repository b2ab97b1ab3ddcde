# Issue 20's two-GPU run, one script for both sides: under PyTorch
#   python3 -m torch.distributed.run --nproc_per_node 2 tools/gpu_bench/ddp_bench.py
# and under Kiln
#   kiln run --nproc-per-node 2 tools/gpu_bench/ddp_bench.py
# (nccl, one GPU per process). It measures the all-reduce bus bandwidth of a 256 MiB gradient
# bucket, the seed tutorial's MiniTransformer DDP training step eager and compiled (compile, then
# DDP, AdamW, cross_entropy: examples/seeds/001_14), and checks that after the steps the
# parameters are identical on every rank and equal to one process trained on the concatenated
# batches. Rank 0 prints one line per result:
#   RESULT <name> <value> <unit>
import os
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = int(os.environ.get("DDP_BENCH_STEPS", "10"))
ONLY_ALLREDUCE = os.environ.get("DDP_BENCH_ONLY_ALLREDUCE", "0") == "1"
LAYERS = int(os.environ.get("DDP_BENCH_LAYERS", "6"))
BATCH, SEQ, VOCAB = 8, 128, 10000


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout):
        super().__init__()
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.qkv_proj = nn.Linear(d_model, d_model * 3)
        self.out_proj = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.scale = self.d_k ** -0.5

    def forward(self, x):
        batch_size, seq_len, _ = x.shape
        qkv = self.qkv_proj(x).reshape(batch_size, seq_len, 3, self.num_heads, self.d_k).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        attn = self.dropout(F.softmax(scores, dim=-1))
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().reshape(batch_size, seq_len, self.d_model)
        return self.out_proj(out)


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout):
        super().__init__()
        self.attention = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Dropout(dropout),
                                          nn.Linear(d_ff, d_model), nn.Dropout(dropout))
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.norm1(x + self.dropout(self.attention(x)))
        return self.norm2(x + self.feed_forward(x))


class MiniTransformer(nn.Module):
    def __init__(self, vocab_size, d_model=512, num_heads=8, num_layers=6, d_ff=2048, max_seq_len=512, dropout=0.1,
                 num_classes=10):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = nn.Embedding(max_seq_len, d_model)
        self.transformer_blocks = nn.ModuleList([TransformerBlock(d_model, num_heads, d_ff, dropout)
                                                 for _ in range(num_layers)])
        self.classifier = nn.Linear(d_model, num_classes)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        positions = torch.arange(seq_len, device=input_ids.device).unsqueeze(0).expand(batch_size, -1)
        x = self.dropout(self.token_embedding(input_ids) + self.position_embedding(positions))
        for block in self.transformer_blocks:
            x = block(x)
        return self.classifier(x[:, 0, :])


dist.init_process_group(backend="nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
rank, world = dist.get_rank(), dist.get_world_size()
dev = torch.device("cuda", local_rank)


def report(name, value, unit):
    if rank == 0:
        print(f"RESULT {name} {value} {unit}", flush=True)


# 1. All-reduce bus bandwidth of one 256 MiB float32 bucket (nccl-tests' busbw: 2(n-1)/n bytes/t).
bucket = torch.ones(64 * 1024 * 1024, device=dev)
for _ in range(3):
    dist.all_reduce(bucket)
torch.cuda.synchronize()
times = []
for _ in range(10):
    dist.barrier()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    dist.all_reduce(bucket)
    torch.cuda.synchronize()
    times.append(time.perf_counter() - t0)
times.sort()
t = times[len(times) // 2]
nbytes = 256 * 1024 * 1024
# The same on the GPU's clock (CUDA events around the call on the current stream) and ten
# back to back with one synchronize (throughput, no host round trip between them).
gpu = []
for _ in range(10):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    dist.all_reduce(bucket)
    e.record()
    e.synchronize()
    gpu.append(s.elapsed_time(e))
gpu.sort()
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(10):
    dist.all_reduce(bucket)
torch.cuda.synchronize()
burst = (time.perf_counter() - t0) / 10
report("nccl_version", ".".join(str(v) for v in torch.cuda.nccl.version()), "")
report("allreduce_256MiB_time", round(t * 1000, 3), "ms")
report("allreduce_256MiB_busbw", round(2 * (world - 1) / world * nbytes / t / 1e9, 1), "GB/s")
report("allreduce_256MiB_gpu_time", round(gpu[len(gpu) // 2], 3), "ms")
report("allreduce_256MiB_busbw_gpu", round(2 * (world - 1) / world * nbytes / (gpu[len(gpu) // 2] / 1000) / 1e9, 1), "GB/s")
report("allreduce_256MiB_busbw_burst10", round(2 * (world - 1) / world * nbytes / burst / 1e9, 1), "GB/s")
del bucket
if ONLY_ALLREDUCE:
    dist.destroy_process_group()
    raise SystemExit(0)

# 2. The training step, eager and compiled, dropout off so that runs can be compared exactly.
torch.manual_seed(0)
data = [(torch.randint(0, VOCAB, (BATCH * world, SEQ)), torch.randint(0, 10, (BATCH * world,))) for _ in range(3)]
mine = slice(rank * BATCH, (rank + 1) * BATCH)


def train(compiled, steps, record):
    torch.manual_seed(1)
    model = MiniTransformer(vocab_size=VOCAB, num_layers=LAYERS, dropout=0.0).to(local_rank)
    net = torch.compile(model) if compiled else model
    ddp = DDP(net, device_ids=[local_rank])
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    step_times = []
    for step in range(steps):
        inputs, labels = data[step % len(data)]
        inputs, labels = inputs[mine].to(local_rank), labels[mine].to(local_rank)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = F.cross_entropy(ddp(inputs), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        step_times.append(time.perf_counter() - t0)
    if record:
        warm = sorted(step_times[2:]) if len(step_times) > 2 else sorted(step_times)
        report("step_" + ("compiled" if compiled else "eager") + "_median", round(warm[len(warm) // 2] * 1000, 2), "ms")
        report("step_" + ("compiled" if compiled else "eager") + "_first", round(step_times[0] * 1000, 1), "ms")
    return model


train(False, STEPS, True)
model = train(True, STEPS, True)

# 3. Checks: the ranks hold the same parameters, equal to one process on the concatenated batches.
flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
low, high = flat.clone(), flat.clone()
dist.all_reduce(low, op=dist.ReduceOp.MIN)
dist.all_reduce(high, op=dist.ReduceOp.MAX)
report("ranks_identical", bool(torch.equal(low, high)), "bool")
if rank == 0:
    torch.manual_seed(1)
    ref = MiniTransformer(vocab_size=VOCAB, num_layers=LAYERS, dropout=0.0).to(local_rank)
    ropt = torch.optim.AdamW(ref.parameters(), lr=1e-3)
    for step in range(STEPS):
        inputs, labels = data[step % len(data)]
        loss = F.cross_entropy(ref(inputs.to(local_rank)), labels.to(local_rank))
        ropt.zero_grad()
        loss.backward()
        ropt.step()
    diff = max((a.detach() - b.detach()).abs().max().item() for a, b in zip(model.parameters(), ref.parameters()))
    report("max_diff_vs_single_process", diff, "abs")
dist.barrier()
dist.destroy_process_group()
