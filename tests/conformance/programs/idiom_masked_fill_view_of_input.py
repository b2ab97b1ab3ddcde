# case: masked_fill_ applied in place to a view (head 0) of an input score tensor before softmax: the caller's scores must change for head 0 only; a second same-shape call reuses the graph
# category: inplace
# from: idiom: attention score masking with masked_fill_
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


CAUSAL = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)


@torch.compile
def mask_first_head(scores):
    head0 = scores[:, 0]
    head0.masked_fill_(CAUSAL, -1e4)
    return F.softmax(scores, dim=-1)


s1 = det((2, 3, 4, 4), seed=1)
out = mask_first_head(s1)
out_1 = s1.clone()
s2 = det((2, 3, 4, 4), seed=2)
out_2 = mask_first_head(s2)
out_3 = [int((s2 == -1e4).sum()), int((s2[:, 1:] == -1e4).sum())]
