# case: decode-time rotary embeddings sliced from global cos/sin tables at a Python-int start_pos (2, 3, 4, 5); the second call recompiles with start_pos as a dynamic int, later calls reuse that graph
# category: recompile
# from: idiom: rotary position embeddings with a start position offset during decoding
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


_inv = 1.0 / (10000.0 ** (torch.arange(0, 8, 2, dtype=torch.float32) / 8))
_ang = torch.outer(torch.arange(16, dtype=torch.float32), _inv)
COS = torch.cat((_ang, _ang), dim=-1).cos()
SIN = torch.cat((_ang, _ang), dim=-1).sin()


@torch.compile
def rope_decode(x, start_pos: int):
    T = x.shape[-2]
    cos = COS[start_pos:start_pos + T]
    sin = SIN[start_pos:start_pos + T]
    return x * cos + rotate_half(x) * sin


out = rope_decode(det((1, 2, 1, 8), seed=1), 2)
out_1 = rope_decode(det((1, 2, 1, 8), seed=2), 3)
out_2 = rope_decode(det((1, 2, 1, 8), seed=3), 4)
out_3 = rope_decode(det((1, 2, 1, 8), seed=3), 5)
