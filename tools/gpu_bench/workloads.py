# The GPU side-by-side benchmark's workloads (issue 15), one script that runs unchanged under
# Kiln (`kiln run workloads.py`) and under PyTorch (`python3 workloads.py`): per workload, the
# median per-call time from CUDA events after warm-up, eager and torch.compile (default mode;
# mode="reduce-overhead" too for the small models), and the compiled function's cold first call. One line per result:
#   RESULT <workload> <mode> <median_ms> <bytes>
# (bytes: the least memory traffic of one call, for GB/s; 0 where not meaningful). A workload
# that cannot run prints `RESULT <workload> <mode> error <message>`.
import os
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

REPEAT = 50
device = torch.device('cuda')


def median_ms(fn, args):
    for _ in range(5):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(REPEAT):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn(*args)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def copy_into(x, y):
    return y.copy_(x)


def relu_affine(x):
    return torch.relu(x * 2 + 1)


def double_cos(x):
    return torch.cos(torch.cos(x))


def softmax_rows(x):
    return torch.softmax(x, -1)


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8192)

    def forward(self, x):
        return self.ln(x)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(1024, 1024)
        self.fc2 = nn.Linear(1024, 1024)
        self.fc3 = nn.Linear(1024, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, 4 * d)
        self.ff2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / ((d // h) ** 0.5), -1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.ff2(F.relu(self.ff1(self.ln2(x))))


class MiniTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(256, 4) for _ in range(4)])
        self.ln = nn.LayerNorm(256)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.ln(x)


def workloads():
    n = 2 ** 26
    big = torch.randn(n, device=device)
    sq = torch.randn(8192, 8192, device=device)
    out = []
    out.append(('relu(x*2+1) 2^26', relu_affine, (big,), 8 * n))
    out.append(('cos(cos(x)) 2^26', double_cos, (big,), 8 * n))
    out.append(('softmax 8192x8192', softmax_rows, (sq,), 8 * 8192 * 8192))
    out.append(('layer_norm 8192x8192', Norm().to(device).eval(), (sq,), 8 * 8192 * 8192))
    mlp = MLP().to(device).eval()
    # The last field: also measure mode="reduce-overhead" (CUDA graphs), where launch overhead is
    # most of a call.
    out.append(('MLP batch 128', mlp, (torch.randn(128, 1024, device=device),), 0, True))
    out.append(('MLP batch 1024', mlp, (torch.randn(1024, 1024, device=device),), 0, True))
    tr = MiniTransformer().to(device).eval()
    out.append(('MiniTransformer 16x128', tr, (torch.randn(16, 128, 256, device=device),), 0, True))
    # Last: an in-place copy, the device's copy ceiling (a failure here stops no other workload).
    out.append(('copy 2^26 (ceiling)', copy_into, (big, torch.empty_like(big)), 8 * n))
    return out


def main():
    torch.manual_seed(0)
    # BENCH_ONLY=softmax,copy: only the workloads whose names hold one of these words.
    only = [w for w in os.environ.get('BENCH_ONLY', '').split(',') if w]
    with torch.no_grad():
        for name, fn, args, nbytes, *graphs in workloads():
            key = name.replace(' ', '_')
            if only and not any(w in key for w in only):
                continue
            try:
                print('RESULT', key, 'eager', median_ms(fn, args), nbytes)
            except Exception as e:
                print('RESULT', key, 'eager', 'error', str(e).split('\n')[0][:120])
            try:
                compiled = torch.compile(fn)
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                compiled(*args)
                torch.cuda.synchronize()
                print('RESULT', key, 'cold_compile', (time.perf_counter() - t0) * 1000.0, 0)
                print('RESULT', key, 'compiled', median_ms(compiled, args), nbytes)
            except Exception as e:
                print('RESULT', key, 'compiled', 'error', str(e).split('\n')[0][:120])
            if not graphs:
                continue
            try:
                # A fresh start: the default mode's cache entries for the same code would serve
                # the calls otherwise.
                torch._dynamo.reset()
                print('RESULT', key, 'reduce_overhead', median_ms(torch.compile(fn, mode='reduce-overhead'), args), nbytes)
            except Exception as e:
                print('RESULT', key, 'reduce_overhead', 'error', str(e).split('\n')[0][:120])


main()
