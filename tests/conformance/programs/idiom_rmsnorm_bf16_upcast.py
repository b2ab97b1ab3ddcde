# case: Llama-style RMSNorm that upcasts to float32, normalizes, casts back to the input dtype and scales by a bfloat16 weight; bfloat16 input stays bfloat16, then a float32 input recompiles (dtype guard) and promotes to float32
# category: model
# from: idiom: RMSNorm with float32 upcast for low-precision inputs
import math

import torch
import torch.nn as nn


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


class LlamaRMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, hidden):
        input_dtype = hidden.dtype
        h = hidden.to(torch.float32)
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(input_dtype)


norm = LlamaRMSNorm(16)
with torch.no_grad():
    norm.weight.copy_(1.0 + 0.1 * det((16,), seed=9))
norm = norm.to(torch.bfloat16)
compiled = torch.compile(norm)

with torch.no_grad():
    y16 = compiled((det((2, 5, 16), seed=1) * 3.0).to(torch.bfloat16))
    y32 = compiled(det((2, 5, 16), seed=2) * 3.0)
out = y16.float()
out_1 = str(y16.dtype)
out_2 = y32
out_3 = str(y32.dtype)
