# case: Llama-style rotary embeddings with a complex64 freqs table (torch.polar) passed in, view_as_complex / view_as_real inside the compiled function, result cast back with type_as
# category: model
# from: idiom: rotary position embeddings (complex multiplication form)
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


@torch.compile
def apply_rotary(xq, xk, freqs_cis):
    B, T, H, D = xq.shape
    xq_c = torch.view_as_complex(xq.float().reshape(B, T, H, D // 2, 2))
    xk_c = torch.view_as_complex(xk.float().reshape(B, T, H, D // 2, 2))
    f = freqs_cis[:T].view(1, T, 1, D // 2)
    xq_out = torch.view_as_real(xq_c * f).flatten(3)
    xk_out = torch.view_as_real(xk_c * f).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


freqs_cis = precompute_freqs_cis(8, 12)
a, b = apply_rotary(det((2, 5, 2, 8), seed=1), det((2, 5, 2, 8), seed=2), freqs_cis)
out = a
out_1 = b
c, _ = apply_rotary(det((2, 5, 2, 8), seed=3), det((2, 5, 2, 8), seed=4), freqs_cis)
out_2 = c
out_3 = str(freqs_cis.dtype)
