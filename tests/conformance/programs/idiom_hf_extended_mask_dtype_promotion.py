# case: int64 attention mask turned into an additive mask ((1.0 - mask) * finfo(dtype).min in the scores dtype) plus int/float promotion of 1 - mask, mask * 0.5, mask / 2, mask // 2; float32 scores then bfloat16 scores (recompile on dtype)
# category: model
# from: idiom: extended attention mask with masked positions set to finfo.min
import math

import torch


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


@torch.compile
def masked_probs(attention_mask, scores):
    dtype = scores.dtype
    ext = attention_mask[:, None, None, :].to(dtype)
    ext = (1.0 - ext) * torch.finfo(dtype).min
    inv = 1 - attention_mask
    half = attention_mask * 0.5
    quot = attention_mask / 2
    fdiv = attention_mask // 2
    probs = (scores + ext).float().softmax(dim=-1).to(dtype)
    return probs, inv, half, quot, fdiv


mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
p32, inv, half, quot, fdiv = masked_probs(mask, det((2, 2, 4, 4), seed=1, scale=2.0))
out = p32
out_1 = [str(inv.dtype), str(half.dtype), str(quot.dtype), str(fdiv.dtype)]
out_2 = [inv, half, quot, fdiv]
p16, _, _, _, _ = masked_probs(mask, det((2, 2, 4, 4), seed=1, scale=2.0).to(torch.bfloat16))
out_3 = p16.float()
out_4 = str(p16.dtype)
