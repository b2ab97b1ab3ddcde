# A fused elementwise chain over 2^24 floats (64 MiB in, 64 MiB out): memory-bound, so its
# bandwidth is compared with a plain memcpy in docs/perf.md.
import torch


@torch.compile
def fused(x):
    return torch.relu(x * 2.0 + 1.0) - 0.5


x = torch.randn(1 << 24)
result = fused(x)
