# case: top-2 MoE with per-token expert weights picked by advanced indexing, results combined back to tokens twice (scatter_add_ and index_add_) plus int64 expert counts from one_hot(...).sum; one graph, two calls
# category: model
# from: idiom: MoE top-k routing combined with scatter_add_/index_add_
import math

import torch
import torch.nn.functional as F


def det(shape, seed=0, scale=1.0):
    """Deterministic pseudo-random values in [-scale, scale]; no RNG involved."""
    n = math.prod(shape)
    k = torch.arange(n, dtype=torch.int64)
    idx = (k * 7919 + seed * 104729) % 10007
    return (torch.sin(idx.to(torch.float32) * 0.37 + 0.1 * seed) * scale).reshape(shape)


N_EXPERTS = 4
ROUTER = det((8, N_EXPERTS), seed=1) / math.sqrt(8)
EXPERT_W = det((N_EXPERTS, 8, 8), seed=2) / math.sqrt(8)


@torch.compile
def moe_combine(x):
    N, d = x.shape
    probs = F.softmax(x @ ROUTER, dim=-1)
    top_w, top_i = probs.topk(2, dim=-1)
    w_sel = EXPERT_W[top_i]  # (N, 2, d, d)
    pair_out = torch.einsum("nd,nkdf->nkf", x, w_sel) * top_w.unsqueeze(-1)
    flat = pair_out.reshape(N * 2, d)
    token = torch.arange(N).repeat_interleave(2)
    via_scatter = torch.zeros(N, d).scatter_add_(0, token[:, None].expand(-1, d), flat)
    via_index = torch.zeros(N, d).index_add_(0, token, flat)
    counts = F.one_hot(top_i.reshape(-1), num_classes=N_EXPERTS).sum(dim=0)
    return via_scatter, via_index, counts


a, b, c = moe_combine(det((6, 8), seed=3))
out = a
out_1 = bool(torch.allclose(a, b, atol=1e-6))
out_2 = c
out_3 = str(c.dtype)
a2, _, c2 = moe_combine(det((6, 8), seed=4))
out_4 = a2
out_5 = c2
